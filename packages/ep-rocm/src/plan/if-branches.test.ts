// If on rocm (plan/if-branches.ts): which Ifs the EP claims, and the plan built for each value of the
// condition. The model is the exporter's sample-rate pattern: If(Equal(sr, 16000)) picks a strided
// Conv1d's hop, both branches reading the outer signal and a weight of the enclosing graph.
import { describe, expect, it } from 'vitest';
import { Graph, KernelRegistry, Tensor, inferShapes, type FusedPartition, type Model, type Node } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { rocmCapability, rocmKernelDefs } from '../capability.js';
import { ROCM_KERNEL_TABLE } from '../kernel-table.js';
import { concretePartition } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';
import { inlineBranch } from './if-branches.js';

const f32 = (dims: number[], seed = 1) => {
  let s = seed;
  return new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.5), dims);
};

/** A branch graph of `nodes` returning `outputs`, its parent `parent`. */
type BranchNode = Pick<Node, 'opType' | 'inputs' | 'outputs'> & Partial<Pick<Node, 'name' | 'attributes'>>;

function branch(parent: Graph, name: string, nodes: BranchNode[], outputs: string[], initializers = new Map<string, Tensor>()): Graph {
  const g = new Graph({ name, opsetImports: parent.opsetImports, parent, outputs: outputs.map((o) => ({ name: o })), initializers });
  for (const n of nodes) g.addNode(n);
  return g;
}

const conv = (stride: number, out: string) => ({ opType: 'Conv', inputs: ['x', 'basis'], outputs: [out], attributes: new Map([['strides', { type: 'ints' as const, value: [stride] }], ['kernel_shape', { type: 'ints' as const, value: [16] }]]) });

/**
 * x [1, 1, 256] float, sr int64 scalar; c = Cast(Equal(sr, 16000), bool); y = If(c) then Conv stride 8
 * else Conv stride 4 (then a Relu after the If). `condition` replaces the Equal's first input.
 */
function srModel(options: { condition?: 'sr' | 'data'; thenNodes?: Parameters<typeof branch>[2]; thenOutput?: string; preprocess?: boolean } = {}): Model {
  const data = options.condition === 'data';
  // With `preprocess`, x is a Relu of the input: a node outside the If whose output only the branches read.
  const pre = options.preprocess ? [{ op: 'Relu', inputs: ['signal'], outputs: ['x'], name: 'pre' }] : [];
  const model = buildModel({
    inputs: [[options.preprocess ? 'signal' : 'x', 'float32', [1, 1, 256]], ['sr', 'int64', []]],
    outputs: [['z', 'float32']],
    initializers: { basis: f32([4, 1, 16], 3), rate: new Tensor('int64', BigInt64Array.from([16000n]), []), zero: new Tensor('float32', Float32Array.from([0]), []) },
    nodes: [...pre, ...(data
      ? [
          { op: 'ReduceMax', inputs: ['x'], outputs: ['m'], name: 'max', attributes: { keepdims: 0 } },
          { op: 'Greater', inputs: ['m', 'zero'], outputs: ['c'], name: 'greater' },
        ]
      : [
          { op: 'Equal', inputs: ['sr', 'rate'], outputs: ['eq'], name: 'equal' },
          { op: 'Cast', inputs: ['eq'], outputs: ['c'], name: 'cast', attributes: { to: 9 } },
        ])],
    opset: 17,
  });
  const g = model.graph;
  const thenBranch = branch(g, 'then', options.thenNodes ?? [conv(8, 'y_then')], [options.thenOutput ?? 'y_then']);
  const elseBranch = branch(g, 'else', [conv(4, 'y_else')], ['y_else']);
  g.addNode({ opType: 'If', name: 'if', inputs: ['c'], outputs: ['y'], attributes: new Map([['then_branch', { type: 'graph', value: thenBranch }], ['else_branch', { type: 'graph', value: elseBranch }]]) });
  g.addNode({ opType: 'Relu', name: 'relu', inputs: ['y'], outputs: ['z'] });
  inferShapes(g);
  return model;
}

function decisions(model: Model): Record<string, string> {
  const registry = new KernelRegistry();
  for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
  const { capabilities, declined } = rocmCapability(model.graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
  const out: Record<string, string> = {};
  for (const c of capabilities) for (const n of c.nodes) out[n.name] = 'gpu';
  for (const [n, r] of declined) out[n.name] = r.message;
  return out;
}

/** The whole graph as one partition, as the session would cut it when rocm takes every node. */
function partitionOf(model: Model): FusedPartition {
  const g = model.graph;
  return { name: 'p', graph: g, nodes: g.nodes, inputNames: g.inputs.map((i) => i.name), outputNames: ['z'] };
}

describe('If on rocm', () => {
  it('claims an If on a small integer input, with both branches, and builds one plan per condition value', () => {
    const model = srModel();
    expect(decisions(model)).toMatchObject({ equal: 'gpu', cast: 'gpu', if: 'gpu', relu: 'gpu' });
    const p = partitionOf(model);
    for (const [rate, stride, width] of [[16000n, 8, 31], [8000n, 4, 61]] as const) {
      const sr = new Tensor('int64', BigInt64Array.from([rate]), []);
      const concrete = concretePartition(p, [{ type: 'float32', dims: [1, 1, 256] }, { type: 'int64', dims: [] }], new Map([['sr', sr]]));
      expect(concrete.nodes.map((n) => n.opType)).toEqual(['Equal', 'Cast', 'Conv', 'Relu']);
      const d = buildPlanDescription(concrete.graph, concrete.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
      // Equal and Cast were computed on the host (no step); the If's place holds the taken branch's Conv.
      expect(d.steps[0].op).toBe('Conv');
      expect(d.steps.some((s) => ['If', 'Equal', 'Cast'].includes(s.op))).toBe(false);
      expect(d.steps[0].attrs.slice(5, 7)).toEqual([1, stride]);
      expect(d.buffers[d.outputs[0]].dims).toEqual([1, 4, width]);
    }
  });

  it('groups an If with the producers of the values its branches capture (one partition, not two)', () => {
    const registry = new KernelRegistry();
    for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
    const { capabilities } = rocmCapability(srModel({ preprocess: true }).graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
    expect(capabilities.map((c) => c.nodes.map((n) => n.name))).toEqual([['pre', 'equal', 'cast', 'if', 'relu']]);
  });

  it('declines an If whose condition comes from tensor data, with the reason', () => {
    expect(decisions(srModel({ condition: 'data' })).if).toMatch(/condition is known when the plan is built/);
  });

  it('declines an If with a branch node rocm cannot run, naming the node', () => {
    const thenNodes = [conv(8, 't'), { opType: 'Sin', name: 'sin', inputs: ['t'], outputs: ['y_then'] }];
    expect(decisions(srModel({ thenNodes })).if).toMatch(/then_branch node Sin '.*sin' cannot run on rocm/);
  });

  it('inlines a branch that returns an outer value through an Identity, and renames its own values', () => {
    const model = srModel({ thenNodes: [{ opType: 'Relu', inputs: ['x'], outputs: ['x_relu'] }], thenOutput: 'x' });
    const ifNode = model.graph.nodes.find((n) => n.opType === 'If')!;
    let id = 100;
    const { nodes } = inlineBranch(ifNode, true, () => id++);
    expect(nodes.map((n) => [n.opType, n.inputs, n.outputs])).toEqual([
      ['Relu', ['x'], ['if/then_branch/x_relu']],
      ['Identity', ['x'], ['y']],
    ]);
    expect(nodes.map((n) => n.id)).toEqual([100, 101]);
  });
});
