import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { aliasCopies } from './copy-alias.js';
import { buildPlanDescription, type PlanDescription } from './plan-description.js';

const shape = (...dims: number[]) => new Tensor('int64', BigInt64Array.from(dims.map(BigInt)), [dims.length]);

// x[4,8] → relu → reshape [2,16] (an alias) → sigmoid → tanh → exp, then the alias is read again at the
// end (add): the relu's memory must outlive every step in between. The graph output is itself a
// reshape of the add, which must stay a real copy into the output region.
function plan(): PlanDescription {
  const model = buildModel({
    inputs: [['x', 'float32', [4, 8]]],
    outputs: [['y', 'float32']],
    initializers: { s16: shape(2, 16), s32: shape(32) },
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r'], name: 'relu' },
      { op: 'Reshape', inputs: ['r', 's16'], outputs: ['rs'], name: 'reshape' },
      { op: 'Sigmoid', inputs: ['rs'], outputs: ['a'], name: 'sigmoid' },
      { op: 'Tanh', inputs: ['a'], outputs: ['b'], name: 'tanh' },
      { op: 'Exp', inputs: ['b'], outputs: ['c'], name: 'exp' },
      { op: 'Add', inputs: ['c', 'rs'], outputs: ['sum'], name: 'add' },
      { op: 'Reshape', inputs: ['sum', 's32'], outputs: ['y'], name: 'out' },
    ],
    opset: 17,
  });
  inferShapes(model.graph);
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames: ['y'] };
  const g = concreteGraph(p, [Tensor.zeros('float32', [4, 8])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, alignment: 16 });
}

const overlaps = (a: { offset: number; bytes: number }, b: { offset: number; bytes: number }) => a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;

describe('Copy steps as aliases', () => {
  it('drops a temp-to-temp copy and gives its output the input memory under its own dims', () => {
    const d = plan();
    const name = (id: number) => d.buffers[id].name;
    expect(d.steps.map((s) => s.op)).toEqual(['Relu', 'Sigmoid', 'Tanh', 'Exp', 'Add', 'Copy']);
    const rs = d.buffers.find((b) => b.name === 'rs')!;
    const r = d.buffers.find((b) => b.name === 'r')!;
    expect(rs.dims).toEqual([2, 16]);
    expect([rs.offset, rs.bytes]).toEqual([r.offset, r.bytes]);
    // The output reshape stays a copy, into its own region.
    expect(d.steps[5].inputs.map(name)).toEqual(['sum']);
    expect(d.outputs.map(name)).toEqual(['y']);
  });

  it('keeps the shared memory apart from every value made while the alias is still to be read', () => {
    const d = plan();
    const r = d.buffers.find((b) => b.name === 'r')!;
    for (const made of ['a', 'b', 'c']) expect(overlaps(r, d.buffers.find((b) => b.name === made)!), made).toBe(false);
  });

  it('keeps copies whose either side another step also writes (in place), and copies into fixed regions', () => {
    const buffers = [0, 1, 2].map((i) => ({ offset: -1, bytes: 64, dtype: 1, dims: [16], name: `b${i}` }));
    const region = new Map([
      [0, 'temp' as const],
      [1, 'temp' as const],
      [2, 'output' as const],
    ]);
    const steps = [
      { op: 'Relu', attrs: [], inputs: [-1], outputs: [0], node: 'make' },
      { op: 'Copy', attrs: [], inputs: [0], outputs: [1], node: 'copy' },
      { op: 'Relu', attrs: [], inputs: [1], outputs: [1], node: 'in place' },
      { op: 'Copy', attrs: [], inputs: [1], outputs: [2], node: 'output' },
    ];
    expect(aliasCopies(steps, buffers, region).aliasOf.size).toBe(0);
    const plain = steps.filter((s) => s.node !== 'in place');
    expect([...aliasCopies(plain, buffers, region).aliasOf]).toEqual([[1, 0]]);
  });
});
