import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';

interface Variant {
  /** Make the product a partition output too. */
  productOut?: boolean;
  /** Bias length (the product's last axis is 6). */
  biasLength?: number;
  /** Add the bias to the product twice (the product then has two readers). */
  twoReaders?: boolean;
  fold?: boolean;
}

// x [2,4,5] → MatMul(W [5,6]) → Add(b) → Relu.
function describePlan(v: Variant = {}) {
  const biasLength = v.biasLength ?? 6;
  const nodes = [
    { op: 'MatMul', inputs: ['x', 'W'], outputs: ['p'], name: 'mm' },
    { op: 'Add', inputs: ['p', 'b'], outputs: ['s'], name: 'bias' },
    { op: 'Relu', inputs: ['s'], outputs: ['y'], name: 'relu' },
  ];
  if (v.twoReaders) nodes.push({ op: 'Add', inputs: ['b', 'p'], outputs: ['t'], name: 'again' });
  const outs = ['y', ...(v.productOut ? ['p'] : []), ...(v.twoReaders ? ['t'] : [])];
  const graph = buildModel({
    inputs: [['x', 'float32', [2, 4, 5]]],
    outputs: outs.map((o) => [o, 'float32'] as [string, 'float32']),
    initializers: {
      W: new Tensor('float32', new Float32Array(30).fill(0.5), [5, 6]),
      b: new Tensor('float32', new Float32Array(biasLength).fill(1), [biasLength]),
    },
    nodes,
    opset: 17,
  }).graph;
  inferShapes(graph);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: outs };
  const g = concreteGraph(p, [Tensor.zeros('float32', [2, 4, 5])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, matmulBiasFold: v.fold ?? true });
}

describe('MatMul → Add(bias) folding', () => {
  it('makes one MatMulBias step that writes the sum', () => {
    const d = describePlan();
    expect(d.steps.map((s) => s.op)).toEqual(['MatMulBias', 'Relu']);
    const name = (id: number) => d.buffers[id].name;
    expect(d.steps[0].inputs.map(name)).toEqual(['x', 'W', 'b']);
    expect(d.steps[0].outputs.map(name)).toEqual(['s']);
    expect(d.steps[1].inputs.map(name)).toEqual(['s']);
  });

  it('keeps the Add when the product is read elsewhere, the bias broadcasts differently, or when not asked', () => {
    const ops = (v: Variant) => describePlan(v).steps.map((s) => s.op);
    expect(ops({ productOut: true })).toEqual(['MatMul', 'Add', 'Relu']);
    expect(ops({ twoReaders: true })).toEqual(['MatMul', 'Add', 'Relu', 'Add']);
    expect(ops({ biasLength: 1 })).toEqual(['MatMul', 'Add', 'Relu']);
    expect(ops({ fold: false })).toEqual(['MatMul', 'Add', 'Relu']);
  });

  it('leaves a GELU bias Add to the GELU fold', () => {
    const graph = buildModel({
      inputs: [['x', 'float32', [2, 4, 5]]],
      outputs: [['y', 'float32']],
      initializers: {
        W: new Tensor('float32', new Float32Array(30).fill(0.5), [5, 6]),
        b: new Tensor('float32', new Float32Array(6).fill(1), [6]),
        r2: new Tensor('float32', new Float32Array([Math.SQRT2]), []),
        one: new Tensor('float32', new Float32Array([1]), []),
        half: new Tensor('float32', new Float32Array([0.5]), []),
      },
      nodes: [
        { op: 'MatMul', inputs: ['x', 'W'], outputs: ['p'], name: 'mm' },
        { op: 'Add', inputs: ['p', 'b'], outputs: ['s'], name: 'bias' },
        { op: 'Div', inputs: ['s', 'r2'], outputs: ['d'], name: 'div' },
        { op: 'Erf', inputs: ['d'], outputs: ['e'], name: 'erf' },
        { op: 'Add', inputs: ['e', 'one'], outputs: ['a'], name: 'add1' },
        { op: 'Mul', inputs: ['s', 'a'], outputs: ['m'], name: 'mul' },
        { op: 'Mul', inputs: ['m', 'half'], outputs: ['y'], name: 'half' },
      ],
      opset: 17,
    }).graph;
    inferShapes(graph);
    const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: ['y'] };
    const g = concreteGraph(p, [Tensor.zeros('float32', [2, 4, 5])]);
    const d = buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, geluFold: true, matmulBiasFold: true });
    expect(d.steps.map((s) => s.op)).toEqual(['MatMul', 'BiasActivation']);
  });
});
