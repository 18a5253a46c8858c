import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';
import { GELU_ERF } from './gelu-fold.js';

const scalar = (v: number) => new Tensor('float32', Float32Array.of(v), []);
// x[2,4] → MatMul w[4,3] → Add b[3] → torch's GELU: Div √2, Erf, Add 1, Mul h, Mul 0.5
function spec(extraReader: boolean): ModelSpec {
  return {
    inputs: [['x', 'float32', [2, 4]]],
    outputs: extraReader ? [['y', 'float32'], ['e', 'float32']] : [['y', 'float32']],
    initializers: {
      w: new Tensor('float32', new Float32Array(12).fill(0.25), [4, 3]),
      b: new Tensor('float32', Float32Array.of(1, 2, 3), [3]),
      sqrt2: scalar(Math.SQRT2),
      one: scalar(1),
      half: scalar(0.5),
    },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'], name: 'matmul' },
      { op: 'Add', inputs: ['m', 'b'], outputs: ['h'], name: 'bias' },
      { op: 'Div', inputs: ['h', 'sqrt2'], outputs: ['d'], name: 'div' },
      { op: 'Erf', inputs: ['d'], outputs: ['e'], name: 'erf' },
      { op: 'Add', inputs: ['e', 'one'], outputs: ['a'], name: 'add1' },
      { op: 'Mul', inputs: ['h', 'a'], outputs: ['p'], name: 'mul' },
      { op: 'Mul', inputs: ['p', 'half'], outputs: ['y'], name: 'half' },
    ],
  };
}

function describePlan(extraReader: boolean, geluFold = true) {
  const graph = buildModel(spec(extraReader)).graph;
  inferShapes(graph);
  const outs = extraReader ? ['y', 'e'] : ['y'];
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: outs };
  const g = concreteGraph(p, [Tensor.zeros('float32', [2, 4])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, geluFold });
}

describe('GELU folding', () => {
  it('turns Add(bias) + the five GELU nodes into one BiasActivation step', () => {
    const d = describePlan(false);
    expect(d.steps.map((s) => s.op)).toEqual(['MatMul', 'BiasActivation']);
    const step = d.steps[1];
    expect(step.attrs).toEqual([GELU_ERF, 0, 0]);
    const name = (id: number) => d.buffers[id].name;
    expect(step.inputs.map(name)).toEqual(['m', 'b']);
    expect(step.outputs.map(name)).toEqual(['y']);
    expect(d.outputs.map(name)).toEqual(['y']);
  });

  it('leaves the chain alone when an intermediate is read elsewhere, or when not asked', () => {
    expect(describePlan(true).steps.map((s) => s.op)).toEqual(['MatMul', 'Add', 'Div', 'Erf', 'Add', 'Mul', 'Mul']);
    expect(describePlan(false, false).steps.map((s) => s.op)).toEqual(['MatMul', 'Add', 'Div', 'Erf', 'Add', 'Mul', 'Mul']);
  });
});
