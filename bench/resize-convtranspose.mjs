// One-node sessions of the ops an FPN / DB-style detector spends its time in besides Conv: Resize
// (nearest x2, bilinear x2) and ConvTranspose (k2 s2), Switchyard's CPU EP (native kernels) against
// onnxruntime-node in one process, in interleaved blocks (bench/lib/timing.mjs), and against the CPU EP's
// TS kernels (useNative: false, a few untimed-block runs: they are slow).
//   node bench/resize-convtranspose.mjs [threads] [--quick]
// Each op feeds a Slice of one element, as in a model its output is an intermediate: that puts it in both
// engines' reused memory, where a graph output would be a fresh 39 MB tensor each run (page faults that
// cost more than the op on a VM). Uses the built packages (run scripts/setup.sh first). Ratios are what to
// read: the machine may be shared.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { InferenceSession, Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
import * as ort from 'onnxruntime-node';
import { planSchedule, summarize, timeInterleaved, warmUp } from './lib/timing.mjs';

const threads = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 2);
const quick = process.argv.includes('--quick');
const dir = mkdtempSync(join(os.tmpdir(), 'sy-bench-'));
const filled = (dims, seed = 1) => {
  const n = dims.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
};

const ints = (v) => new Tensor('int64', v.map(BigInt), [v.length]);
const x96 = [1, 96, 160, 160];
const cases = [
  {
    label: 'Resize nearest x2 [1,96,160,160] (asymmetric, floor)',
    xDims: x96,
    spec: { initializers: { scales: new Tensor('float32', [1, 1, 2, 2], [4]) }, nodes: [{ op: 'Resize', inputs: ['x', '', 'scales'], outputs: ['y'], attributes: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' } }] },
  },
  {
    label: 'Resize bilinear x2 [1,96,160,160] (half_pixel)',
    xDims: x96,
    spec: { initializers: { scales: new Tensor('float32', [1, 1, 2, 2], [4]) }, nodes: [{ op: 'Resize', inputs: ['x', '', 'scales'], outputs: ['y'], attributes: { mode: 'linear' } }] },
  },
  {
    label: 'ConvTranspose k2 s2 [1,64,160,160] -> [1,32,320,320] (+ bias)',
    xDims: [1, 64, 160, 160],
    spec: {
      initializers: { w: new Tensor('float32', filled([64, 32, 2, 2], 3).map((v) => v * 0.1), [64, 32, 2, 2]), b: new Tensor('float32', filled([32], 4), [32]) },
      nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w', 'b'], outputs: ['y'], attributes: { kernel_shape: [2, 2], strides: [2, 2] } }],
    },
  },
];

console.log(`# ${os.cpus()[0]?.model ?? 'CPU'}, ${os.availableParallelism()} cores, load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}; ${threads} thread(s)${quick ? ', --quick' : ''}`);
for (const c of cases) {
  const tail = {
    initializers: { ...c.spec.initializers, starts: ints([0, 0, 0, 0]), ends: ints([1, 1, 1, 1]) },
    nodes: [...c.spec.nodes, { op: 'Slice', inputs: ['y', 'starts', 'ends'], outputs: ['z'] }],
  };
  const model = buildModel({ inputs: [['x', 'float32', c.xDims]], outputs: [['z', 'float32']], opset: 13, ...tail });
  const path = join(dir, 'model.onnx');
  writeFileSync(path, encodeModel(model));
  const x = filled(c.xDims, 9);
  const sy = await InferenceSession.create(path, { executionProviders: [new CpuExecutionProvider()], intraOpNumThreads: threads });
  const ts = await InferenceSession.create(path, { executionProviders: [new CpuExecutionProvider({ useNative: false })], intraOpNumThreads: threads });
  const or = await ort.InferenceSession.create(path, { executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const contestants = [
    { name: 'switchyard', run: (f) => sy.run(f), feeds: { x: new Tensor('float32', x, c.xDims) } },
    { name: 'ort', run: (f) => or.run(f), feeds: { x: new ort.Tensor('float32', x, c.xDims) } },
  ];
  // Same outputs before timing anything: the whole op output, from sessions that return it.
  const full = encodeModel(buildModel({ inputs: [['x', 'float32', c.xDims]], outputs: [['y', 'float32']], opset: 13, ...c.spec }));
  const syFull = await InferenceSession.create(full, { executionProviders: [new CpuExecutionProvider()], intraOpNumThreads: threads });
  const orFull = await ort.InferenceSession.create(full, { intraOpNumThreads: threads });
  const a = (await syFull.run(contestants[0].feeds)).y.data;
  const b = (await orFull.run(contestants[1].feeds)).y.data;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  await syFull.release();
  await orFull.release();
  const warm = Math.max(...(await Promise.all(contestants.map(async (k) => Math.min(...(await warmUp(k, 5)))))));
  const timed = await timeInterleaved(contestants, planSchedule(warm, quick));
  const tsTimes = [];
  for (let i = 0; i < (quick ? 2 : 4); i++) {
    const t = performance.now();
    await ts.run(contestants[0].feeds);
    tsTimes.push(performance.now() - t);
  }
  const tsP50 = summarize(tsTimes.slice(1)).p50Ms;
  const s = timed.switchyard.p50Ms;
  const o = timed.ort.p50Ms;
  console.log(`${c.label}: ${sy.placement.nodes[0].implementation} p50 ${s.toFixed(2)} ms | ort ${o.toFixed(2)} ms (ours/ort ${(s / o).toFixed(2)}) | TS kernel ${tsP50.toFixed(1)} ms (TS/ours ${(tsP50 / s).toFixed(1)}x) | max |ours - ort| ${worst.toExponential(1)}`);
  await sy.release();
  await ts.release();
  await or.release();
}
