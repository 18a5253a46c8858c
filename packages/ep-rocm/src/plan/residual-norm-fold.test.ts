import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';

// x, r [2,3,8] → Relu x → Add(relu, r) → LayerNormalization(γ, β); `sumOut` makes the sum an output too.
function describePlan(sumOut: boolean, residualNormFold = true) {
  const graph = buildModel({
    inputs: [['x', 'float32', [2, 3, 8]], ['r', 'float32', [2, 3, 8]]],
    outputs: sumOut ? [['y', 'float32'], ['s', 'float32']] : [['y', 'float32']],
    initializers: { g: new Tensor('float32', new Float32Array(8).fill(1), [8]), b: new Tensor('float32', new Float32Array(8), [8]) },
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['h'], name: 'relu' },
      { op: 'Add', inputs: ['h', 'r'], outputs: ['s'], name: 'add' },
      { op: 'LayerNormalization', inputs: ['s', 'g', 'b'], outputs: ['y'], name: 'norm', attributes: { axis: -1, epsilon: 1e-5 } },
    ],
    opset: 17,
  }).graph;
  inferShapes(graph);
  const outs = sumOut ? ['y', 's'] : ['y'];
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x', 'r'], outputNames: outs };
  const g = concreteGraph(p, [Tensor.zeros('float32', [2, 3, 8]), Tensor.zeros('float32', [2, 3, 8])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, residualNormFold });
}

describe('Add → LayerNormalization folding', () => {
  it('passes the residual to the norm step and drops the Add', () => {
    const d = describePlan(false);
    expect(d.steps.map((s) => s.op)).toEqual(['Relu', 'LayerNormalization']);
    const name = (id: number) => (id < 0 ? '-' : d.buffers[id].name);
    expect(d.steps[1].inputs.map(name)).toEqual(['h', 'g', 'b', 'r']);
    expect(d.steps[1].attrs).toEqual([6, 8, 1e-5]);
  });

  it('keeps the Add when its sum is read elsewhere, or when not asked', () => {
    expect(describePlan(true).steps.map((s) => s.op)).toEqual(['Relu', 'Add', 'LayerNormalization']);
    expect(describePlan(false, false).steps.map((s) => s.op)).toEqual(['Relu', 'Add', 'LayerNormalization']);
  });
});
