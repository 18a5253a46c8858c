import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { castFolds, shiftedConstant } from './integer-ops.js';
import { buildPlanDescription, fp16Eligible } from './plan-description.js';

const wq = new Tensor('uint8', Uint8Array.from({ length: 3 * 4 * 9 }, (_, i) => (i * 37) % 256), [3, 4, 3, 3]);
const wzp = new Tensor('uint8', Uint8Array.from([128]), []);
const wScale = new Tensor('float32', Float32Array.from([0.01]), []);
const bias = new Tensor('float32', Float32Array.from([1, 2, 3]), [1, 3, 1, 1]);

/** One Conv as onnxruntime's quantize_dynamic writes it (models/quantize_dynamic.py), `int` its int32 result. */
function quantizedConv(intIsOutput = false): ModelSpec {
  return {
    inputs: [['x', 'float32', [1, 4, 6, 6]]],
    outputs: [['y', 'float32'], ...(intIsOutput ? [['int', 'int32'] as ModelSpec['outputs'][number]] : [])],
    initializers: { wq, wzp, wScale, bias },
    nodes: [
      { op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['xq', 'xs', 'xz'], name: 'dql' },
      { op: 'ConvInteger', inputs: ['xq', 'wq', 'xz', 'wzp'], outputs: ['int'], name: 'conv', attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Cast', inputs: ['int'], outputs: ['f'], name: 'cast', attributes: { to: 1 } },
      { op: 'Mul', inputs: ['xs', 'wScale'], outputs: ['scale'], name: 'scales' },
      { op: 'Mul', inputs: ['f', 'scale'], outputs: ['scaled'], name: 'rescale' },
      { op: 'Add', inputs: ['scaled', 'bias'], outputs: ['y'], name: 'bias' },
    ],
  };
}

function planOf(spec: ModelSpec, feeds: Tensor[], fp16 = false) {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: spec.inputs.map((i) => i[0]), outputNames: spec.outputs.map((o) => o[0]) };
  const g = concreteGraph(p, feeds);
  const d = buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16 });
  const name = (id: number) => (id < 0 ? '' : d.buffers[id].name);
  return { graph, d, name };
}

describe('ConvInteger / MatMulInteger plans', () => {
  it('runs the quantize_dynamic chain as quantize, shift, float convolution into the Cast output, rescale', () => {
    const { d, name } = planOf(quantizedConv(), [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(d.steps.map((s) => s.op)).toEqual(['DynamicQuantizeLinear', 'QuantShift', 'ConvIntegerF32', 'Mul', 'Rescale']);
    const [dql, shift, conv, , rescale] = d.steps;
    // Mul by the scales, bias Add: one pass, [channels, inner, relu].
    expect([rescale.attrs, rescale.inputs.map(name), rescale.outputs.map(name)]).toEqual([[3, 36, 0], ['f', 'scale', 'bias'], ['y']]);
    expect(dql.outputs.map(name)).toEqual(['xq', 'xs', 'xz']);
    expect(dql.workspace?.bytes).toBe(2 * 1024 * 4);
    expect(shift.inputs.map(name)).toEqual(['xq', 'xz']);
    expect(shift.attrs).toEqual([1, 1]);
    // The Cast is folded: the convolution writes the Cast's float32 output.
    expect(conv.outputs.map(name)).toEqual(['f']);
    expect(d.buffers[conv.outputs[0]].dtype).toBe(1);
    // Conv attributes: group, pads t l b r, strides, dilations, search, activation.
    expect(conv.attrs).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    // The weight goes up once, shifted by its zero point on the host.
    const w = d.constants.find((c) => d.buffers[c.buffer].name.startsWith('wq:shifted'))!;
    expect(Array.from(w.data as Float32Array).slice(0, 4)).toEqual([0 - 128, 37 - 128, 74 - 128, 111 - 128]);
    expect(d.constants.some((c) => d.buffers[c.buffer].name === 'wq')).toBe(false);
  });

  it('casts to int32 when the integer result leaves the plan', () => {
    const { d, name } = planOf(quantizedConv(true), [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(d.steps.map((s) => s.op)).toEqual(['DynamicQuantizeLinear', 'QuantShift', 'ConvIntegerF32', 'Cast', 'Cast', 'Mul', 'Mul', 'Add']);
    // No Cast folded, so no rescale fold either.
    expect(d.steps[3].outputs.map(name)).toEqual(['int']);
    expect(d.buffers[d.steps[3].outputs[0]].dtype).toBe(6);
  });

  it('takes a Relu into the rescale, and a bias-less rescale', () => {
    const relu = quantizedConv();
    relu.nodes[5].outputs = ['biased'];
    relu.nodes.push({ op: 'Relu', inputs: ['biased'], outputs: ['y'], name: 'relu' });
    const withRelu = planOf(relu, [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(withRelu.d.steps.map((s) => s.op)).toEqual(['DynamicQuantizeLinear', 'QuantShift', 'ConvIntegerF32', 'Mul', 'Rescale']);
    expect(withRelu.d.steps[4].attrs).toEqual([3, 36, 1]);
    expect(withRelu.d.steps[4].node).toBe('rescale + bias + relu');
    const bare = quantizedConv();
    bare.nodes.pop();
    bare.nodes[4].outputs = ['y'];
    const noBias = planOf(bare, [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(noBias.d.steps.at(-1)!.inputs.map(noBias.name)).toEqual(['f', 'scale']);
  });

  it('ends the rescale where a value of the chain leaves the plan', () => {
    const spec = quantizedConv();
    spec.outputs.push(['scaled', 'float32']);
    const { d, name } = planOf(spec, [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(d.steps.map((s) => s.op)).toEqual(['DynamicQuantizeLinear', 'QuantShift', 'ConvIntegerF32', 'Mul', 'Rescale', 'Add']);
    expect(d.steps[4].outputs.map(name)).toEqual(['scaled']);
  });

  it('folds the Cast only while a sum cannot leave int32', () => {
    const wide = (k: number): ModelSpec => ({
      inputs: [['q', 'uint8', [1, k, 1, 1]]],
      outputs: [['f', 'float32']],
      initializers: { w: new Tensor('uint8', new Uint8Array(k), [1, k, 1, 1]) },
      nodes: [
        { op: 'ConvInteger', inputs: ['q', 'w'], outputs: ['i'], name: 'conv' },
        { op: 'Cast', inputs: ['i'], outputs: ['f'], name: 'cast', attributes: { to: 1 } },
      ],
    });
    // 33025 · 255² < 2^31 ≤ 33026 · 255².
    for (const [k, folded] of [[33025, 1], [33026, 0]]) {
      const graph = buildModel(wide(k)).graph;
      inferShapes(graph);
      expect(castFolds(graph, graph.nodes, ['f']).size, `k = ${k}`).toBe(folded);
    }
  });

  it('shifts computed operands on the device, per row of A and per column of B', () => {
    const spec: ModelSpec = {
      inputs: [['a', 'uint8', [2, 3, 4]], ['az', 'uint8', [2, 3, 1]], ['b', 'int8', [4, 5]], ['bz', 'int8', [5]]],
      outputs: [['y', 'int32']],
      nodes: [{ op: 'MatMulInteger', inputs: ['a', 'b', 'az', 'bz'], outputs: ['y'], name: 'mm' }],
    };
    const feeds = [Tensor.zeros('uint8', [2, 3, 4]), Tensor.zeros('uint8', [2, 3, 1]), Tensor.zeros('int8', [4, 5]), Tensor.zeros('int8', [5])];
    const { d, name } = planOf(spec, feeds);
    expect(d.steps.map((s) => [s.op, s.attrs, s.inputs.map(name)])).toEqual([
      ['QuantShift', [6, 4], ['a', 'az']],
      ['QuantShift', [5, 1], ['b', 'bz']],
      ['MatMul', [], ['a:shifted(az)', 'b:shifted(bz)']],
      ['Cast', [], ['y:f32']],
    ]);
  });

  it('shifts a tensor quantized once for several readers once', () => {
    const spec = quantizedConv();
    spec.nodes.push({ op: 'ConvInteger', inputs: ['xq', 'wq', 'xz', 'wzp'], outputs: ['int2'], name: 'conv2' });
    spec.outputs.push(['int2', 'int32']);
    const { d } = planOf(spec, [Tensor.zeros('float32', [1, 4, 6, 6])]);
    expect(d.steps.filter((s) => s.op === 'QuantShift')).toHaveLength(1);
    expect(d.constants.filter((c) => d.buffers[c.buffer].name.startsWith('wq:shifted'))).toHaveLength(1);
  });

  it('keeps quantizing partitions in float32', () => {
    const graph = buildModel(quantizedConv()).graph;
    inferShapes(graph);
    expect(fp16Eligible(graph, graph.nodes)).toContain('quantizes in float32');
    const { d } = planOf(quantizedConv(), [Tensor.zeros('float32', [1, 4, 6, 6])], true);
    expect(d.buffers.every((b) => b.dtype !== 10)).toBe(true);
  });

  it('shifts constant weights per output channel', () => {
    const q = new Tensor('int8', Int8Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
    expect(Array.from(shiftedConstant(q, new Tensor('int8', Int8Array.from([1, -1]), [2]), 2, 3))).toEqual([0, 1, 2, 5, 6, 7]);
    expect(Array.from(shiftedConstant(q, undefined, 1, 1))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
