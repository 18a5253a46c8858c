import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';

const wt = new Tensor('float32', new Float32Array(4 * 3 * 3 * 3).fill(0.1), [4, 3, 3, 3]);
const bias = new Tensor('float32', new Float32Array(4).fill(0.5), [4]);
const lo = new Tensor('float32', Float32Array.of(0), []);
const hi = new Tensor('float32', Float32Array.of(6), []);
const bias4 = new Tensor('float32', new Float32Array(4 * 8 * 8).fill(1), [4, 1, 8, 8]);
const overlapsAny = (a: { offset: number; bytes: number }, b: { offset: number; bytes: number }) => a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;

function plan(nodes: ModelSpec['nodes'], outputs: string[]) {
  const spec: ModelSpec = {
    inputs: [['x', 'float32', [1, 3, 8, 8]]],
    outputs: outputs.map((o) => [o, 'float32'] as [string, 'float32']),
    initializers: { wt, bias, lo, hi, bias4 },
    nodes,
  };
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x'], outputNames: outputs };
  const g = concreteGraph(p, [Tensor.zeros('float32', [1, 3, 8, 8])]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
}

const conv = { op: 'Conv', inputs: ['x', 'wt', 'bias'], outputs: ['c'], name: 'conv', attributes: { pads: [1, 1, 1, 1] } };

describe('folding activations into Conv steps', () => {
  it('folds a Relu that is the conv output’s only reader: one step, ReLU code 1, output is the conv buffer', () => {
    const d = plan([conv, { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu' }], ['y']);
    expect(d.steps.map((s) => s.op)).toEqual(['Conv']);
    expect(d.steps[0].attrs).toHaveLength(11);
    expect(d.steps[0].attrs[10]).toBe(1);
    expect(d.outputs).toEqual(d.steps[0].outputs);
    expect(d.buffers[d.outputs[0]].dims).toEqual([1, 4, 8, 8]);
  });

  it('folds Clip with constant bounds as the epilogue op (kernels::UnaryOp 9) with min and max', () => {
    const d = plan([conv, { op: 'Clip', inputs: ['c', 'lo', 'hi'], outputs: ['y'], name: 'relu6' }], ['y']);
    expect(d.steps.map((s) => s.op)).toEqual(['Conv']);
    expect(d.steps[0].attrs.slice(10)).toEqual([2, 9, 0, 6]);
  });

  it('keeps the activation as its own step when the conv output has another reader or is an output', () => {
    const shared = plan(
      [conv, { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu' }, { op: 'Add', inputs: ['c', 'y'], outputs: ['z'], name: 'add' }],
      ['z'],
    );
    expect(shared.steps.map((s) => s.op)).toEqual(['Conv', 'Relu', 'Add']);
    expect(shared.steps[0].attrs[10]).toBe(0);
    const exposed = plan([conv, { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu' }], ['y', 'c']);
    expect(exposed.steps.map((s) => s.op)).toEqual(['Conv', 'Relu']);
  });

  it('plans a FusedConv (the CPU EP fusion’s node) whose output shape core cannot infer, reading it as its Conv', () => {
    const d = plan(
      [{ op: 'FusedConv', domain: 'com.microsoft', inputs: ['x', 'wt', 'bias'], outputs: ['y'], name: 'fused', attributes: { pads: [1, 1, 1, 1], activation: 'Relu' } }],
      ['y'],
    );
    expect(d.steps.map((s) => s.op)).toEqual(['Conv']);
    expect(d.steps[0].attrs[10]).toBe(1);
    expect(d.buffers[d.outputs[0]].dims).toEqual([1, 4, 8, 8]);
  });

  it('folds Conv → Add(residual) → Relu into one step with the residual as fourth operand, even when the residual comes later', () => {
    const d = plan(
      [
        conv,
        // the residual branch is computed after the conv, as a ResNet downsample branch is
        { op: 'Conv', inputs: ['x', 'wt'], outputs: ['z'], name: 'down', attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Add', inputs: ['c', 'z'], outputs: ['s'], name: 'add' },
        { op: 'Relu', inputs: ['s'], outputs: ['y'], name: 'relu' },
      ],
      ['y'],
    );
    expect(d.steps.map((s) => s.node)).toEqual(['down', 'conv + add + relu']);
    const fused = d.steps[1];
    expect(fused.attrs[10]).toBe(1);
    expect(fused.inputs).toHaveLength(4);
    expect(fused.inputs[3]).toBe(d.steps[0].outputs[0]);
    expect(d.outputs).toEqual(fused.outputs);
    // the residual's buffer is live until the fused step reads it
    const z = d.buffers[fused.inputs[3]];
    expect(overlapsAny(z, d.buffers[fused.outputs[0]])).toBe(false);
  });

  it('does not fold an Add that broadcasts', () => {
    const d = plan([conv, { op: 'Add', inputs: ['c', 'bias4'], outputs: ['y'], name: 'add' }], ['y']);
    expect(d.steps.map((s) => s.op)).toEqual(['Conv', 'Add']);
  });

  it('leaves ops it cannot fold (Exp) alone', () => {
    const d = plan([conv, { op: 'Exp', inputs: ['c'], outputs: ['y'], name: 'exp' }], ['y']);
    expect(d.steps.map((s) => s.op)).toEqual(['Conv', 'Exp']);
  });
});
