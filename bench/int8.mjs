#!/usr/bin/env node
/**
 * Quantized models, Switchyard's CPU EP vs onnxruntime-node in one process (interleaved blocks,
 * lib/timing.mjs), and the CPU EP with its native int8 paths vs its TS kernels:
 *   - dynamic: `quantize_dynamic`'s form of a conv stack (DynamicQuantizeLinear → ConvInteger → Cast → Mul
 *     → Add(bias) → Relu per conv; int8 weights, per-tensor scale, as its defaults write them);
 *   - qdq: `quantize_static`'s QDQ form of a ResNet basic block (uint8 activations, int8 per-channel weights,
 *     int32 bias, residual Add), quantized in and dequantized out.
 * The models are built here (the same patterns as packages/ep-cpu/src/fusions/quantized-models.test-util.ts).
 *
 *   node bench/int8.mjs [--threads 2] [--quick] [--out bench/results/int8-<date>.json]
 * Needs the built packages (scripts/setup.sh). Timings on a shared machine are indicative: read the ratios.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tensor, encodeModel, InferenceSession } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
import { createEngine, engineVersions } from './lib/engines.mjs';
import { planSchedule, timeInterleaved, warmUp } from './lib/timing.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const threads = Number(flag('threads', 2));
const quick = args.includes('--quick');
const out = flag('out', undefined);

/** Seeded values in [lo, hi). */
function values(n, seed, lo, hi) {
  const v = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = lo + (s / 2 ** 32) * (hi - lo);
  }
  return v;
}

const ints = (Ctor, type, dims, seed, lo, hi) => new Tensor(type, Ctor.from(values(dims.reduce((a, b) => a * b, 1), seed, lo, hi + 1), Math.floor), dims);
const f32 = (v, dims) => new Tensor('float32', Float32Array.from(v), dims);

/**
 * `layers` 3x3 convs of `channels` at `size`², as quantize_dynamic writes them: int8 weights (its default) or
 * uint8 weights with a zero point (weight_type=QUInt8, as in the zoo's unet_1024_int8).
 */
function dynamicStack(layers, channels, size, weightType = 'int8') {
  const initializers = {};
  const nodes = [];
  let input = 'x';
  for (let l = 0; l < layers; l++) {
    const p = `l${l}`;
    initializers[`${p}_w`] = weightType === 'int8' ? ints(Int8Array, 'int8', [channels, channels, 3, 3], 10 + l, -127, 127) : ints(Uint8Array, 'uint8', [channels, channels, 3, 3], 10 + l, 0, 255);
    if (weightType === 'uint8') initializers[`${p}_wz`] = new Tensor('uint8', Uint8Array.of(128), []);
    initializers[`${p}_ws`] = f32([1 / (127 * Math.sqrt(channels * 9))], []);
    initializers[`${p}_b`] = f32(values(channels, 40 + l, -0.1, 0.1), [1, channels, 1, 1]);
    nodes.push(
      { op: 'DynamicQuantizeLinear', inputs: [input], outputs: [`${p}_xq`, `${p}_xs`, `${p}_xz`] },
      { op: 'ConvInteger', inputs: [`${p}_xq`, `${p}_w`, `${p}_xz`, weightType === 'uint8' ? `${p}_wz` : ''], outputs: [`${p}_ci`], attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Cast', inputs: [`${p}_ci`], outputs: [`${p}_cf`], attributes: { to: 1 } },
      { op: 'Mul', inputs: [`${p}_xs`, `${p}_ws`], outputs: [`${p}_s`] },
      { op: 'Mul', inputs: [`${p}_cf`, `${p}_s`], outputs: [`${p}_m`] },
      { op: 'Add', inputs: [`${p}_m`, `${p}_b`], outputs: [`${p}_a`] },
      { op: 'Relu', inputs: [`${p}_a`], outputs: [l === layers - 1 ? 'y' : `${p}_r`] },
    );
    input = `${p}_r`;
  }
  return buildModel({
    inputs: [['x', 'float32', [1, channels, size, size]]],
    outputs: [['y', 'float32', [1, channels, size, size]]],
    initializers,
    nodes,
    opset: 13,
  });
}

/** One QDQ conv: DQ(W int8 per channel) → Conv(·, ·, DQ(B int32)) [→ Relu] → Q. */
function qdqConv(p, input, output, channels, seed, relu, xScale, yScale, initializers) {
  const ws = values(channels, seed + 1, 0.5, 1.5).map((v) => (v * 4) / (127 * Math.sqrt(channels * 9)));
  initializers[`${p}_w`] = ints(Int8Array, 'int8', [channels, channels, 3, 3], seed, -127, 127);
  initializers[`${p}_ws`] = f32(ws, [channels]);
  initializers[`${p}_b`] = ints(Int32Array, 'int32', [channels], seed + 2, -2000, 2000);
  initializers[`${p}_bs`] = f32(Array.from(ws, (w) => Math.fround(xScale * w)), [channels]);
  initializers[`${p}_ys`] = f32([yScale], []);
  initializers[`${p}_yz`] = new Tensor('uint8', Uint8Array.of(relu ? 0 : 128), []);
  const nodes = [
    { op: 'DequantizeLinear', inputs: [`${p}_w`, `${p}_ws`], outputs: [`${p}_wf`], attributes: { axis: 0 } },
    { op: 'DequantizeLinear', inputs: [`${p}_b`, `${p}_bs`], outputs: [`${p}_bf`], attributes: { axis: 0 } },
    { op: 'Conv', inputs: [input, `${p}_wf`, `${p}_bf`], outputs: [relu ? `${p}_c` : `${p}_pre`], attributes: { pads: [1, 1, 1, 1] } },
  ];
  if (relu) nodes.push({ op: 'Relu', inputs: [`${p}_c`], outputs: [`${p}_pre`] });
  nodes.push({ op: 'QuantizeLinear', inputs: [`${p}_pre`, `${p}_ys`, `${p}_yz`], outputs: [output] });
  return nodes;
}

function qdqResNetBlock(channels, size) {
  const initializers = { in_s: f32([0.02], []), in_z: new Tensor('uint8', Uint8Array.of(128), []), sum_s: f32([0.04], []), sum_z: new Tensor('uint8', Uint8Array.of(128), []) };
  const nodes = [
    { op: 'QuantizeLinear', inputs: ['x', 'in_s', 'in_z'], outputs: ['xq'] },
    { op: 'DequantizeLinear', inputs: ['xq', 'in_s', 'in_z'], outputs: ['xf'] },
    ...qdqConv('c1', 'xf', 'c1q', channels, 100, true, 0.02, 0.02, initializers),
    { op: 'DequantizeLinear', inputs: ['c1q', 'c1_ys', 'c1_yz'], outputs: ['c1f'] },
    ...qdqConv('c2', 'c1f', 'c2q', channels, 200, false, 0.02, 0.03, initializers),
    { op: 'DequantizeLinear', inputs: ['c2q', 'c2_ys', 'c2_yz'], outputs: ['c2f'] },
    { op: 'DequantizeLinear', inputs: ['xq', 'in_s', 'in_z'], outputs: ['xf2'] },
    { op: 'Add', inputs: ['c2f', 'xf2'], outputs: ['sum'] },
    { op: 'Relu', inputs: ['sum'], outputs: ['sumr'] },
    { op: 'QuantizeLinear', inputs: ['sumr', 'sum_s', 'sum_z'], outputs: ['yq'] },
    { op: 'DequantizeLinear', inputs: ['yq', 'sum_s', 'sum_z'], outputs: ['y'] },
  ];
  return buildModel({ inputs: [['x', 'float32', [1, channels, size, size]]], outputs: [['y', 'float32', [1, channels, size, size]]], initializers, nodes, opset: 13 });
}

const CASES = [
  { id: 'dynamic-conv-stack', label: 'quantize_dynamic conv stack (int8 weights): 8 x (64->64 3x3) at 256x256', build: () => dynamicStack(8, 64, 256), input: [1, 64, 256, 256], ts: () => dynamicStack(2, 64, 64), tsLabel: '2 x (64->64 3x3) at 64x64' },
  { id: 'dynamic-conv-stack-u8', label: 'quantize_dynamic conv stack (uint8 weights, zero point 128): 8 x (64->64 3x3) at 256x256', build: () => dynamicStack(8, 64, 256, 'uint8'), input: [1, 64, 256, 256], ts: () => dynamicStack(2, 64, 64, 'uint8'), tsLabel: '2 x (64->64 3x3) at 64x64' },
  { id: 'qdq-resnet-block', label: 'quantize_static QDQ ResNet block: 64 ch at 56x56', build: () => qdqResNetBlock(64, 56), input: [1, 64, 56, 56], ts: () => qdqResNetBlock(64, 28), tsLabel: '64 ch at 28x28' },
];

async function switchyardSession(model, useNative) {
  const session = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative })], graphOptimizationLevel: 'all', intraOpNumThreads: threads });
  return { session, run: (feeds) => session.run(feeds) };
}

const dir = mkdtempSync(join(tmpdir(), 'switchyard-int8-bench-'));
const results = { date: new Date().toISOString(), threads, quick, versions: engineVersions(), machine: 'shared: timings indicative', cases: [] };
for (const c of CASES) {
  const path = join(dir, `${c.id}.onnx`);
  writeFileSync(path, encodeModel(c.build()));
  const x = values(c.input.reduce((a, b) => a * b, 1), 7, -1, 2);
  const engines = [];
  for (const name of ['switchyard', 'ort']) {
    const e = await createEngine(name, path, threads);
    engines.push({ ...e, feeds: e.makeFeeds({ x: { type: 'float32', data: x, dims: c.input } }) });
  }
  const warm = await Promise.all(engines.map((e) => warmUp(e, 2)));
  const timing = await timeInterleaved(engines, planSchedule(Math.max(...warm.map((w) => w[w.length - 1])), quick));
  const sy = engines[0];
  // Native vs TS kernels on a smaller variant (the TS path is orders of magnitude slower).
  const small = c.ts();
  const smallX = values(small.graph.inputs[0].type.shape.reduce((a, b) => a * b, 1), 8, -1, 2);
  const feeds = { x: new Tensor('float32', smallX, small.graph.inputs[0].type.shape) };
  const native = await switchyardSession(c.ts(), true);
  const ts = await switchyardSession(c.ts(), false);
  const nativeVsTs = await timeInterleaved([{ name: 'native', run: native.run, feeds }, { name: 'ts', run: ts.run, feeds }], { rounds: quick ? 1 : 2, blockRuns: quick ? 1 : 2, settleMs: 50, settleRuns: 1 });
  await native.session.release();
  await ts.session.release();
  const entry = {
    id: c.id,
    label: c.label,
    switchyardNodes: sy.nodes,
    switchyardImplementations: sy.implementations,
    switchyard: timing.switchyard,
    ort: timing.ort,
    ratio: timing.switchyard.p50Ms / timing.ort.p50Ms,
    nativeVsTs: { label: c.tsLabel, native: nativeVsTs.native, ts: nativeVsTs.ts, speedup: nativeVsTs.ts.p50Ms / nativeVsTs.native.p50Ms },
  };
  results.cases.push(entry);
  console.log(`${c.label}: Switchyard p50 ${entry.switchyard.p50Ms.toFixed(1)} ms, onnxruntime p50 ${entry.ort.p50Ms.toFixed(1)} ms (ratio ${entry.ratio.toFixed(2)}); ` +
    `native vs TS (${c.tsLabel}): ${entry.nativeVsTs.native.p50Ms.toFixed(1)} vs ${entry.nativeVsTs.ts.p50Ms.toFixed(0)} ms (${entry.nativeVsTs.speedup.toFixed(0)}x)`);
  for (const e of engines) await e.release();
}
if (out) writeFileSync(out, JSON.stringify(results, null, 2));
