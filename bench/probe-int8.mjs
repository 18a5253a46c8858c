import { Tensor, InferenceSession } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
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

/** `layers` 3x3 convs of `channels` at `size`², as quantize_dynamic writes them. */
function dynamicStack(layers, channels, size) {
  const initializers = {};
  const nodes = [];
  let input = 'x';
  for (let l = 0; l < layers; l++) {
    const p = `l${l}`;
    initializers[`${p}_w`] = ints(Int8Array, 'int8', [channels, channels, 3, 3], 10 + l, -127, 127);
    initializers[`${p}_ws`] = f32([1 / (127 * Math.sqrt(channels * 9))], []);
    initializers[`${p}_b`] = f32(values(channels, 40 + l, -0.1, 0.1), [1, channels, 1, 1]);
    nodes.push(
      { op: 'DynamicQuantizeLinear', inputs: [input], outputs: [`${p}_xq`, `${p}_xs`, `${p}_xz`] },
      { op: 'ConvInteger', inputs: [`${p}_xq`, `${p}_w`, `${p}_xz`], outputs: [`${p}_ci`], attributes: { pads: [1, 1, 1, 1] } },
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


const model = process.argv[2] === 'dyn' ? dynamicStack(2, 64, 64) : qdqResNetBlock(64, 56);
const shape = model.graph.inputs[0].type.shape;
const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'all', intraOpNumThreads: +(process.argv[3] ?? 2), enableProfiling: true });
console.log(s.placement.nodes.map((n) => `${n.opType}:${n.implementation}`).join(' '));
const x = new Tensor('float32', values(shape.reduce((a, b) => a * b, 1), 3, -1, 2), shape);
for (let i = 0; i < 6; i++) { const t = performance.now(); await s.run({ x }); console.log((performance.now() - t).toFixed(1), 'ms'); }
const evs = s.profileEvents.filter((e) => e.op !== 'Session').slice(-s.placement.nodes.length);
for (const e of evs) console.log(`${(e.end - e.start).toFixed(2).padStart(8)} ms ${e.op}`);
