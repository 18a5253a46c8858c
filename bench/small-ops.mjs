// Where a native call stops paying off for Gemm, Softmax and the dtype-generic kernels (ep-cpu
// native-support.ts's SMALL_GEMM_MACS / SMALL_SOFTMAX_ELEMENTS / SMALL_MOVE_ELEMENTS / SMALL_REDUCE_ELEMENTS /
// SMALL_NORM_ELEMENTS), and what routing the demo model's small ones to the TS kernels gives:
//   node bench/small-ops.mjs [threads] [--generic-only]
// Part 1: one-node sessions, oneDNN (smallOpsInTs: false) against TS kernels (useNative: false), p50 of
// 2000 warm runs. Part 2: the demo model (examples/models/tiny-cnn.onnx) with smallOpsInTs on and off,
// in interleaved blocks after a 100 ms sleep and 2 untimed runs (as bench/cpu.mjs times), 16 rounds.
// Uses the built packages (run scripts/setup.sh first).
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';

const threads = Number(process.argv[2] ?? 2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const p50us = (t) => ((t.sort((a, b) => a - b)[t.length >> 1]) * 1000).toFixed(1);
const filled = (dims) => new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i)), dims);

async function warmP50(model, feeds, options) {
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider(options)], graphOptimizationLevel: 'disabled', intraOpNumThreads: threads });
  for (let i = 0; i < 300; i++) await s.run(feeds);
  const t = [];
  for (let i = 0; i < 2000; i++) {
    const a = performance.now();
    await s.run(feeds);
    t.push(performance.now() - a);
  }
  const impl = s.placement.nodes[0].implementation;
  await s.release();
  return `${impl} ${p50us(t)} µs`;
}

const genericOnly = process.argv.includes('--generic-only');

// The dtype-generic kernels (data movement, reductions, normalizations) at growing sizes: native vs TS.
console.log(`# dtype-generic kernels, one-node sessions, ${threads} thread(s): native vs TS`);
const int64 = (v) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
const genericCases = [
  ['Transpose', (n) => ({ dims: [n / 8, 8], node: { op: 'Transpose', attributes: { perm: [1, 0] } } })],
  ['Concat', (n) => ({ dims: [n / 16, 8], extra: [['b', 'float32', [n / 16, 8]]], node: { op: 'Concat', inputs: ['x', 'b'], attributes: { axis: 1 } } })],
  ['Slice', (n) => ({ dims: [n / 8, 16], init: { s: int64([0]), e: int64([8]), a: int64([1]) }, node: { op: 'Slice', inputs: ['x', 's', 'e', 'a'] } })],
  ['Gather', (n) => ({ dims: [64, n / 8], init: { i: int64([3, 9, 1, 0, 33, 2, 7, 8]) }, node: { op: 'Gather', inputs: ['x', 'i'] } })],
  ['Cast', (n) => ({ dims: [n], out: 'float16', node: { op: 'Cast', attributes: { to: 10 } } })],
  ['ReduceMean', (n) => ({ dims: [n / 64, 64], node: { op: 'ReduceMean', attributes: { axes: [-1] } } })],
  ['Softmax', (n) => ({ dims: [n / 64, 64], node: { op: 'Softmax', attributes: { axis: -1 } } })],
  ['InstanceNorm', (n) => ({ dims: [1, 4, n / 4], init: { s: filled([4]), b: filled([4]) }, node: { op: 'InstanceNormalization', inputs: ['x', 's', 'b'] } })],
];
for (const [name, make] of genericCases) {
  const row = [];
  for (const n of [64, 128, 256, 512, 1024, 4096]) {
    const c = make(n);
    const inputs = [['x', 'float32', c.dims], ...(c.extra ?? [])];
    const m = buildModel({
      inputs,
      outputs: [['y', c.out ?? 'float32']],
      initializers: c.init,
      nodes: [{ inputs: ['x'], outputs: ['y'], name: 'n', ...c.node }],
      opset: 13,
    });
    const feeds = Object.fromEntries(inputs.map(([k, , d]) => [k, filled(d)]));
    row.push(`${n}: ${(await warmP50(m, feeds, { smallOpsInTs: false })).split(' ')[1]}/${(await warmP50(m, feeds, { useNative: false })).split(' ')[1]}`);
  }
  console.log(`${name.padEnd(12)} elements: native/TS µs  ${row.join('  ')}`);
}
if (genericOnly) process.exit(0);

console.log(`# one-node sessions, ${threads} thread(s): oneDNN vs TS`);
for (const dims of [[1, 10], [1, 100], [4, 64], [1, 1000], [8, 256]]) {
  const m = buildModel({ inputs: [['x', 'float32', dims]], outputs: [['y', 'float32']], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], name: 'n', attributes: { axis: -1 } }], opset: 17 });
  console.log(`Softmax [${dims}] (${dims[0] * dims[1]} elements): ${await warmP50(m, { x: filled(dims) }, { smallOpsInTs: false })} | ${await warmP50(m, { x: filled(dims) }, { useNative: false })}`);
}
for (const [m_, k, n] of [[1, 64, 10], [1, 32, 32], [1, 128, 64], [1, 256, 256], [4, 256, 128]]) {
  const m = buildModel({ inputs: [['x', 'float32', [m_, k]]], outputs: [['y', 'float32']], initializers: { w: filled([n, k]), b: filled([n]) }, nodes: [{ op: 'Gemm', inputs: ['x', 'w', 'b'], outputs: ['y'], name: 'n', attributes: { transB: 1 } }], opset: 17 });
  console.log(`Gemm ${m_}x${k}x${n} (${m_ * k * n} multiply-adds): ${await warmP50(m, { x: filled([m_, k]) }, { smallOpsInTs: false })} | ${await warmP50(m, { x: filled([m_, k]) }, { useNative: false })}`);
}

const demo = async (smallOpsInTs) =>
  InferenceSession.create('examples/models/tiny-cnn.onnx', { executionProviders: [new CpuExecutionProvider({ smallOpsInTs })], intraOpNumThreads: threads, graphOptimizationLevel: 'all' });
const on = await demo(true);
const off = await demo(false);
const name = on.inputNames[0];
const feeds = { [name]: filled([1, 3, 32, 32]) };
const times = new Map([[on, []], [off, []]]);
for (const s of [on, off]) for (let i = 0; i < 200; i++) await s.run(feeds);
for (let round = 0; round < 16; round++) {
  for (const s of round % 2 ? [on, off] : [off, on]) {
    await sleep(100);
    for (let i = 0; i < 2; i++) await s.run(feeds);
    for (let i = 0; i < 25; i++) {
      const a = performance.now();
      await s.run(feeds);
      times.get(s).push(performance.now() - a);
    }
  }
}
console.log(`# tiny-cnn (demo), ${threads} thread(s), interleaved blocks: smallOpsInTs p50 ${p50us(times.get(on))} µs, every op on oneDNN p50 ${p50us(times.get(off))} µs`);
