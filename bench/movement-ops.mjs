// The dtype-generic native kernels (ep-cpu native/src/vector_loops*, movement/reduce/softmax/normalize
// functions) one op at a time, at the sizes real models give them: Switchyard with the addon vs its TS
// kernels vs onnxruntime-node, one-node models in one process, timed in interleaved blocks
// (bench/lib/timing.mjs) after a warm-up. Checks that the three agree before timing.
//   node bench/movement-ops.mjs [--threads N] [--quick] [--ops transpose,concat,...]
// Uses the built packages (run scripts/setup.sh first). On a shared machine the numbers are indicative.
import { createRequire } from 'node:module';
import { InferenceSession, Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
import { planSchedule, timeInterleaved, warmUp } from './lib/timing.mjs';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const threads = Number(flag('--threads') ?? 2);
const quick = argv.includes('--quick');
const only = flag('--ops')?.split(',');

function seeded(n, seed, scale = 1) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 31 - 1) * scale;
  }
  return out;
}
const floats = (dims, seed, scale) => new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed, scale), dims);
const int64 = (values, dims = [values.length]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

/** name → one-node model spec and feeds. */
const CASES = {
  transpose: () => ({
    label: 'Transpose [1,56,56,96] → [1,96,56,56]',
    spec: { inputs: [['x', 'float32', [1, 56, 56, 96]]], nodes: [{ op: 'Transpose', inputs: ['x'], outputs: ['y'], attributes: { perm: [0, 3, 1, 2] } }] },
    feeds: { x: floats([1, 56, 56, 96], 1) },
  }),
  concat: () => ({
    label: 'Concat KV cache [1,12,64,64] + [1,12,1,64]',
    spec: {
      inputs: [['past', 'float32', [1, 12, 64, 64]], ['x', 'float32', [1, 12, 1, 64]]],
      nodes: [{ op: 'Concat', inputs: ['past', 'x'], outputs: ['y'], attributes: { axis: 2 } }],
    },
    feeds: { past: floats([1, 12, 64, 64], 2), x: floats([1, 12, 1, 64], 3) },
  }),
  gather: () => ({
    label: 'Gather 128 rows of [30522,768]',
    spec: {
      inputs: [['ids', 'int64', [1, 128]]],
      initializers: { table: floats([30522, 768], 4) },
      nodes: [{ op: 'Gather', inputs: ['table', 'ids'], outputs: ['y'] }],
    },
    feeds: { ids: int64(Array.from({ length: 128 }, (_, i) => (i * 7919) % 30522), [1, 128]) },
  }),
  reducemean: () => ({
    label: 'ReduceMean last axis of [128,768]',
    spec: { inputs: [['x', 'float32', [128, 768]]], nodes: [{ op: 'ReduceMean', inputs: ['x'], outputs: ['y'], attributes: { axes: [-1] } }] },
    feeds: { x: floats([128, 768], 5) },
  }),
  softmax: () => ({
    label: 'Softmax axis 1 of [1,21,520,520]',
    spec: { inputs: [['x', 'float32', [1, 21, 520, 520]]], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis: 1 } }] },
    feeds: { x: floats([1, 21, 520, 520], 6, 8) },
  }),
  groupnorm: () => ({
    label: 'GroupNormalization 32 groups of [1,256,64,64] (opset 21)',
    opset: 21,
    spec: {
      inputs: [['x', 'float32', [1, 256, 64, 64]]],
      initializers: { s: floats([256], 7), b: floats([256], 8) },
      nodes: [{ op: 'GroupNormalization', inputs: ['x', 's', 'b'], outputs: ['y'], attributes: { num_groups: 32 } }],
    },
    feeds: { x: floats([1, 256, 64, 64], 9, 3) },
  }),
  cast: () => ({
    label: 'Cast float32 → float16 [1,256,64,64]',
    out: 'float16',
    spec: { inputs: [['x', 'float32', [1, 256, 64, 64]]], nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['y'], attributes: { to: 10 } }] },
    feeds: { x: floats([1, 256, 64, 64], 10, 100) },
  }),
  attention_softmax: () => ({
    label: 'Softmax last axis of [1,12,128,128]',
    spec: { inputs: [['x', 'float32', [1, 12, 128, 128]]], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis: -1 } }] },
    feeds: { x: floats([1, 12, 128, 128], 11, 8) },
  }),
  head_split: () => ({
    label: 'Transpose [1,128,12,64] → [1,12,128,64]',
    spec: { inputs: [['x', 'float32', [1, 128, 12, 64]]], nodes: [{ op: 'Transpose', inputs: ['x'], outputs: ['y'], attributes: { perm: [0, 2, 1, 3] } }] },
    feeds: { x: floats([1, 128, 12, 64], 12) },
  }),
  pad: () => ({
    label: 'Pad reflect [1,64,128,128] by 3',
    spec: {
      inputs: [['x', 'float32', [1, 64, 128, 128]]],
      initializers: { p: int64([0, 0, 3, 3, 0, 0, 3, 3]) },
      nodes: [{ op: 'Pad', inputs: ['x', 'p'], outputs: ['y'], attributes: { mode: 'reflect' } }],
    },
    feeds: { x: floats([1, 64, 128, 128], 13) },
  }),
  instancenorm: () => ({
    label: 'InstanceNormalization [1,64,128,128]',
    spec: {
      inputs: [['x', 'float32', [1, 64, 128, 128]]],
      initializers: { s: floats([64], 14), b: floats([64], 15) },
      nodes: [{ op: 'InstanceNormalization', inputs: ['x', 's', 'b'], outputs: ['y'] }],
    },
    feeds: { x: floats([1, 64, 128, 128], 16, 3) },
  }),
};

async function switchyard(model, options) {
  const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider(options)], graphOptimizationLevel: 'disabled', intraOpNumThreads: threads, logSeverityLevel: 3 });
  return { session: s, implementation: s.placement.nodes[0].implementation };
}

function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (d > m || Number.isNaN(d)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

console.log(`# dtype-generic kernels, ${threads} thread(s), one process, interleaved blocks; shared machine: indicative`);
for (const [name, make] of Object.entries(CASES)) {
  if (only && !only.includes(name)) continue;
  const c = make();
  const model = buildModel({ ...c.spec, outputs: [['y', c.out ?? 'float32']], opset: c.opset ?? 17 });
  const native = await switchyard(model, {});
  const ts = await switchyard(model, { useNative: false });
  const ortSession = await ort.InferenceSession.create(encodeModel(model), { intraOpNumThreads: threads, interOpNumThreads: 1, logSeverityLevel: 3 });
  const ortFeeds = Object.fromEntries(Object.entries(c.feeds).map(([k, t]) => [k, new ort.Tensor(t.type, t.data, [...t.dims])]));
  const contestants = [
    { name: `native (${native.implementation})`, run: (f) => native.session.run(f), feeds: c.feeds },
    { name: 'ts', run: (f) => ts.session.run(f), feeds: c.feeds },
    { name: 'ort', run: (f) => ortSession.run(f), feeds: ortFeeds },
  ];
  const outs = [(await native.session.run(c.feeds)).y.data, (await ts.session.run(c.feeds)).y.data, (await ortSession.run(ortFeeds)).y.data];
  const agree = `native−ts ${maxDiff(outs[0], outs[1]).toExponential(1)}, native−ort ${maxDiff(outs[0], outs[2]).toExponential(1)}`;
  let slowest = 0;
  for (const k of contestants) slowest = Math.max(slowest, Math.min(...(await warmUp(k, quick ? 3 : 6)).slice(1)));
  const result = await timeInterleaved(contestants, planSchedule(slowest, quick));
  const [n, t, o] = contestants.map((k) => result[k.name].p50Ms);
  const [nMin, tMin, oMin] = contestants.map((k) => result[k.name].minMs);
  const ms = (v) => v.toFixed(3).padStart(8);
  console.log(
    `${c.label.padEnd(58)} p50 native ${ms(n)} | ts ${ms(t)} (${(t / n).toFixed(1)}×) | ort ${ms(o)} (native/ort ${(n / o).toFixed(2)})` +
      `  min ${ms(nMin)} | ${ms(tMin)} | ${ms(oMin)} (${(nMin / oMin).toFixed(2)})  [${contestants[0].name}; max |Δ| ${agree}]`,
  );
  await native.session.release();
  await ts.session.release();
  await ortSession.release();
}
