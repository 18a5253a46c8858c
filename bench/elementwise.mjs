// The CPU EP's native elementwise engine (ep-cpu native/src/elementwise_*) against its TS kernels and
// against onnxruntime-node:
//   node bench/elementwise.mjs [threads] [--quick] [--part=ops|graph]
// Part 1 (ops): one-node sessions, native (smallOpsInTs: false) vs TS (useNative: false) per op and
// output size, p50 of interleaved blocks: where the native call starts to pay (native-support.ts's
// SMALL_ELEMENTWISE_ELEMENTS). Part 2 (graph): HardSwish written out as x · clip(x + 3, 0, 6) / 6,
// twice in a row, on [1, 32, 320, 320]: Switchyard at 'all' (one FusedElementwise per HardSwish), at
// 'extended' (eight native nodes), TS only, and onnxruntime-node, all in one process, interleaved
// (bench/lib/timing.mjs). Uses the built packages (run scripts/setup.sh first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
import { createEngine } from './lib/engines.mjs';
import { summarize, timeInterleaved, warmUp } from './lib/timing.mjs';

const args = process.argv.slice(2);
const threads = Number(args.find((a) => /^\d+$/.test(a)) ?? 2);
const quick = args.includes('--quick');
const part = args.find((a) => a.startsWith('--part='))?.slice(7);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const filled = (dims, seed = 1) => new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * 0.37 + seed) * 5), dims);
const scalar = (v) => new Tensor('float32', Float32Array.of(v), []);

async function session(model, options, level = 'disabled') {
  return InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider(options)], graphOptimizationLevel: level, intraOpNumThreads: threads });
}

/** p50 µs of `a` and `b` (sessions on the same feeds) in interleaved blocks. */
async function abP50(a, b, feeds) {
  const runs = quick ? 50 : 200;
  for (const s of [a, b]) for (let i = 0; i < runs; i++) await s.run(feeds);
  const t = new Map([[a, []], [b, []]]);
  for (let round = 0; round < (quick ? 4 : 8); round++) {
    for (const s of round % 2 ? [a, b] : [b, a]) {
      await sleep(20);
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        await s.run(feeds);
        t.get(s).push(performance.now() - start);
      }
    }
  }
  return [summarize(t.get(a)).p50Ms * 1000, summarize(t.get(b)).p50Ms * 1000];
}

const OPS = {
  Relu: (dims) => ({ inputs: [['x', 'float32', dims]], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] }),
  Sigmoid: (dims) => ({ inputs: [['x', 'float32', dims]], nodes: [{ op: 'Sigmoid', inputs: ['x'], outputs: ['y'] }] }),
  Clip: (dims) => ({ inputs: [['x', 'float32', dims]], initializers: { lo: scalar(0), hi: scalar(6) }, nodes: [{ op: 'Clip', inputs: ['x', 'lo', 'hi'], outputs: ['y'] }] }),
  Add: (dims) => ({ inputs: [['x', 'float32', dims], ['z', 'float32', dims]], nodes: [{ op: 'Add', inputs: ['x', 'z'], outputs: ['y'] }] }),
  'Mul (per-row)': (dims) => ({ inputs: [['x', 'float32', dims], ['z', 'float32', [dims[0], 1]]], nodes: [{ op: 'Mul', inputs: ['x', 'z'], outputs: ['y'] }] }),
};

async function opsPart() {
  console.log(`# one-node sessions, ${threads} thread(s): p50 µs native | TS (ratio TS/native)`);
  const sizes = quick ? [256, 1024, 4096, 16384] : [64, 256, 1024, 2048, 4096, 8192, 16384, 65536, 262144];
  for (const [op, spec] of Object.entries(OPS)) {
    const row = [];
    for (const n of sizes) {
      const dims = [n / 64, 64];
      const s = spec(dims);
      const model = () => buildModel({ opset: 13, outputs: [['y', 'float32']], ...s });
      const feeds = Object.fromEntries(s.inputs.map(([name, , d], k) => [name, filled(d, k)]));
      const fast = await session(model(), { smallOpsInTs: false });
      const slow = await session(model(), { useNative: false });
      if (fast.placement.nodes[0].implementation !== 'native') throw new Error(`${op}: the native kernel did not take the node`);
      const [a, b] = await abP50(fast, slow, feeds);
      row.push(`${n}: ${a.toFixed(1)} | ${b.toFixed(1)} (${(b / a).toFixed(2)}x)`);
      await fast.release();
      await slow.release();
    }
    console.log(`${op.padEnd(14)} ${row.join('   ')}`);
  }
}

function hardSwishGraph(dims) {
  const hs = (x, k) => [
    { op: 'Add', inputs: [x, 'three'], outputs: [`a${k}`] },
    { op: 'Clip', inputs: [`a${k}`, 'zero', 'six'], outputs: [`c${k}`] },
    { op: 'Mul', inputs: [x, `c${k}`], outputs: [`m${k}`] },
    { op: 'Div', inputs: [`m${k}`, 'six'], outputs: [`h${k}`] },
  ];
  return buildModel({
    opset: 13,
    inputs: [['x', 'float32', dims]],
    outputs: [['h1', 'float32']],
    initializers: { three: scalar(3), zero: scalar(0), six: scalar(6) },
    nodes: [...hs('x', 0), ...hs('h0', 1)],
  });
}

async function graphPart() {
  const dims = [1, 32, 320, 320];
  const dir = mkdtempSync(join(tmpdir(), 'sy-eltwise-'));
  const path = join(dir, 'hardswish2.onnx');
  // Writes the model file both engines load (a 'disabled' session saves it unchanged).
  await (await InferenceSession.fromModel(hardSwishGraph(dims), { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled', optimizedModelFilePath: path })).release();
  const x = filled(dims);
  const fused = await InferenceSession.create(path, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'all', intraOpNumThreads: threads });
  const separate = await InferenceSession.create(path, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'extended', intraOpNumThreads: threads });
  const ts = await InferenceSession.create(path, { executionProviders: [new CpuExecutionProvider({ useNative: false })], graphOptimizationLevel: 'all', intraOpNumThreads: threads });
  const ort = await createEngine('ort', path, threads);
  const describe = (s) => s.placement.nodes.map((n) => `${n.opType}:${n.implementation}`).join(' ');
  console.log(`# HardSwish as Add/Clip/Mul/Div, twice, on [${dims}], ${threads} thread(s)`);
  console.log(`  'all': ${describe(fused)}\n  'extended': ${describe(separate)}`);
  const contestants = [
    { name: 'switchyard all (fused)', run: (f) => fused.run(f), feeds: { x } },
    { name: 'switchyard extended (8 native nodes)', run: (f) => separate.run(f), feeds: { x } },
    { name: 'onnxruntime-node', run: (f) => ort.run(f), feeds: ort.makeFeeds({ x: { type: 'float32', data: x.data, dims } }) },
    { name: 'switchyard TS kernels', run: (f) => ts.run(f), feeds: { x } },
  ];
  // Same outputs first.
  const ref = (await ort.run(contestants[2].feeds))[ort.outputNames[0]].data;
  for (const c of [contestants[0], contestants[1], contestants[3]]) {
    const y = (await c.run(c.feeds)).h1.data;
    let worst = 0;
    for (let i = 0; i < y.length; i++) worst = Math.max(worst, Math.abs(y[i] - ref[i]) / (1 + Math.abs(ref[i])));
    console.log(`  ${c.name}: max relative difference from onnxruntime ${worst.toExponential(2)}`);
  }
  for (const c of contestants) await warmUp(c, 3);
  const result = await timeInterleaved(contestants, { rounds: quick ? 3 : 8, blockRuns: quick ? 4 : 10, settleMs: 100, settleRuns: 2 });
  const ortP50 = result['onnxruntime-node'].p50Ms;
  for (const c of contestants) {
    const r = result[c.name];
    console.log(`  ${c.name.padEnd(38)} p50 ${r.p50Ms.toFixed(2)} ms  p90 ${r.p90Ms.toFixed(2)} ms  (${(r.p50Ms / ortP50).toFixed(2)}x onnxruntime's p50)`);
  }
  for (const s of [fused, separate, ts]) await s.release();
  await ort.release();
  rmSync(dir, { recursive: true, force: true });
}

if (!part || part === 'ops') await opsPart();
if (!part || part === 'graph') await graphPart();
