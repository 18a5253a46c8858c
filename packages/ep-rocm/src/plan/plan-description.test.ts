import { describe, expect, it } from 'vitest';
import { ONNX_DATA_TYPE, Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription, fp16Eligible } from './plan-description.js';

const w = new Tensor('float32', Float32Array.from({ length: 8 }, (_, i) => i), [8]);
const shape = new Tensor('int64', BigInt64Array.from([-1n]), [1]);
// x[batch, 8] → relu → add w → softmax → reshape(-1); relu is an output too
const spec: ModelSpec = {
  inputs: [['x', 'float32', ['batch', 8]]],
  outputs: [['y', 'float32'], ['r', 'float32']],
  initializers: { w, shape },
  nodes: [
    { op: 'Relu', inputs: ['x'], outputs: ['r'], name: 'relu' },
    { op: 'Add', inputs: ['r', 'w'], outputs: ['a'], name: 'add' },
    { op: 'Softmax', inputs: ['a'], outputs: ['s'], name: 'softmax', attributes: { axis: -1 } },
    { op: 'Reshape', inputs: ['s', 'shape'], outputs: ['y'], name: 'reshape' },
  ],
};

function partitionOf(): FusedPartition {
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  return { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: ['y', 'r'] };
}

function describePlan(fp16 = false, batch = 2) {
  const p = partitionOf();
  const g = concreteGraph(p, [Tensor.zeros('float32', [batch, 8])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 1, captureGraph: true, fp16 });
}

const overlaps = (a: { offset: number; bytes: number }, b: { offset: number; bytes: number }) => a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;

describe('buildPlanDescription', () => {
  it('makes one step per node with operands by buffer id and attributes as numbers', () => {
    const d = describePlan();
    expect(d.deviceId).toBe(1);
    expect(d.captureGraph).toBe(true);
    expect(d.steps.map((s) => s.op)).toEqual(['Relu', 'Add', 'Softmax', 'Copy']);
    const name = (id: number) => d.buffers[id].name;
    expect(d.steps.map((s) => [s.inputs.map(name), s.outputs.map(name)])).toEqual([
      [['x'], ['r']],
      [['r', 'w'], ['a']],
      [['a'], ['s']],
      [['s'], ['y']],
    ]);
    // Softmax over the last axis of [2, 8]: rows 2, cols 8.
    expect(d.steps[2].attrs).toEqual([2, 8]);
    expect(d.inputs.map(name)).toEqual(['x']);
    expect(d.outputs.map(name)).toEqual(['y', 'r']);
    // The reshape target shape is folded away, the weight uploaded once.
    expect(d.constants.map((c) => name(c.buffer))).toEqual(['w']);
    expect(d.constants[0].data).toBe(w.data);
  });

  it('sizes buffers from the concrete shapes and keeps them inside the arena, aligned', () => {
    const d = describePlan(false, 3);
    const byName = Object.fromEntries(d.buffers.map((b) => [b.name, b]));
    expect(byName.x).toMatchObject({ dims: [3, 8], bytes: 96, dtype: ONNX_DATA_TYPE.float32 });
    expect(byName.y.dims).toEqual([24]);
    for (const b of d.buffers) {
      expect(b.offset % 256).toBe(0);
      expect(b.offset + b.bytes).toBeLessThanOrEqual(d.arenaBytes);
    }
  });

  it('never lets values alive at the same step share memory, and keeps inputs/outputs/constants apart', () => {
    const d = describePlan();
    const fixed = new Set([...d.inputs, ...d.outputs, ...d.constants.map((c) => c.buffer)]);
    d.steps.forEach((s) => {
      const live = [...s.inputs, ...s.outputs].filter((i) => i >= 0);
      for (const a of live) for (const b of live) if (a !== b) expect(overlaps(d.buffers[a], d.buffers[b])).toBe(false);
    });
    for (const a of fixed) d.buffers.forEach((b, id) => id !== a && expect(overlaps(d.buffers[a], b)).toBe(false));
  });

  it('with fp16, stores floats as float16 inside and casts at the boundary', () => {
    const d = describePlan(true);
    // The Reshape is an alias of the softmax's output (copy-alias.ts): the output Cast reads it there.
    expect(d.steps.map((s) => s.op)).toEqual(['Cast', 'Relu', 'Add', 'Softmax', 'Cast', 'Cast']);
    const types = Object.fromEntries(d.buffers.map((b) => [b.name, b.dtype]));
    expect(types).toMatchObject({ x: ONNX_DATA_TYPE.float32, 'x:fp16': ONNX_DATA_TYPE.float16, w: ONNX_DATA_TYPE.float16, s: ONNX_DATA_TYPE.float16 });
    expect(d.outputs.map((id) => d.buffers[id].dtype)).toEqual([ONNX_DATA_TYPE.float32, ONNX_DATA_TYPE.float32]);
    // 3.0 as float16 bits is 0x4200.
    expect((d.constants[0].data as Uint16Array)[3]).toBe(0x4200);
  });

  it('keeps float32 when the partition is not eligible for fp16', () => {
    const graph = buildModel({ inputs: [['x', 'float32', [2]]], outputs: [['y', 'float16']], nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['y'], name: 'c', attributes: { to: 10 } }] }).graph;
    inferShapes(graph);
    expect(fp16Eligible(graph, graph.nodes)).toBe("node 'c' (Cast) fixes a float type");
    const d = buildPlanDescription(graph, graph.nodes, ['x'], ['y'], { deviceId: 0, captureGraph: false, fp16: true });
    expect(d.steps.map((s) => s.op)).toEqual(['Cast']);
  });

  it('stays eligible for fp16 with a Cast from int64 to float32, whose output is then stored as float16', () => {
    const graph = buildModel({
      inputs: [['m', 'int64', [2, 4]]],
      outputs: [['y', 'float32']],
      initializers: { k: new Tensor('float32', Float32Array.of(-10000), []) },
      nodes: [
        { op: 'Cast', inputs: ['m'], outputs: ['f'], name: 'c', attributes: { to: 1 } },
        { op: 'Mul', inputs: ['f', 'k'], outputs: ['y'], name: 'mul' },
      ],
    }).graph;
    inferShapes(graph);
    expect(fp16Eligible(graph, graph.nodes)).toBe(true);
    const d = buildPlanDescription(graph, graph.nodes, ['m'], ['y'], { deviceId: 0, captureGraph: false, fp16: true });
    const cast = d.steps.find((s) => s.node === 'c')!;
    expect(d.buffers[cast.inputs[0]].dtype).toBe(ONNX_DATA_TYPE.int64);
    expect(d.buffers[cast.outputs[0]].dtype).toBe(ONNX_DATA_TYPE.float16);
    expect(d.buffers[d.outputs[0]].dtype).toBe(ONNX_DATA_TYPE.float32);
  });

  it('refuses shapes that are not static at plan time', () => {
    const p = partitionOf();
    expect(() => buildPlanDescription(p.graph, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false })).toThrow(/shape of 'x' is not static/);
  });

  it('encodes FusedConv: Relu as code 1 (the library call), other activations as the epilogue op with params', () => {
    const convModel = (activation: string, params: number[] = []) => {
      const g = buildModel({
        inputs: [['x', 'float32', [1, 2, 4, 4]]],
        outputs: [['y', 'float32']],
        initializers: { w: Tensor.zeros('float32', [3, 2, 3, 3]) },
        nodes: [{ op: 'FusedConv', domain: 'com.microsoft', inputs: ['x', 'w'], outputs: ['y'], name: 'fc', attributes: { activation, pads: [1, 1, 1, 1], ...(params.length ? { activation_params: params } : {}) } }],
      }).graph;
      g.opsetImports.set('com.microsoft', 1);
      g.valueInfo.set('y', { name: 'y', type: { kind: 'tensor', elemType: 'float32', shape: [1, 3, 4, 4] } });
      return buildPlanDescription(g, g.nodes, ['x'], ['y'], { deviceId: 0, captureGraph: false, fp16: false, convAlgoSearch: 'EXHAUSTIVE' });
    };
    const relu = convModel('Relu');
    expect(relu.steps.map((s) => s.op)).toEqual(['Conv']);
    // [group, pads t/l/b/r, strides, dilations, search (2 = exhaustive), activation (1 = relu)]
    expect(relu.steps[0].attrs).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1]);
    const clip = convModel('Clip', [0.5, 6.5]);
    expect(clip.steps.map((s) => s.op)).toEqual(['Conv']);
    // activation 2 = the epilogue's unary op: kernels::UnaryOp::kClip (9), min, max
    expect(clip.steps[0].attrs.slice(10)).toEqual([2, 9, 0.5, 6.5]);
    expect(convModel('Sigmoid').steps[0].attrs.slice(10)).toEqual([2, 3, 0, 0]);
  });
});
