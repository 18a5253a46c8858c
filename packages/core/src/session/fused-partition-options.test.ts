/** What buildPlan hands a compiling EP beyond the nodes: no subplans for control flow it took, and which outputs stay on its device. */
import { describe, expect, it } from 'vitest';
import type { ExecutionProvider, FusedPartition } from '../ep/execution-provider.js';
import { Graph } from '../ir/graph.js';
import { KernelRegistry } from '../registry/kernel-registry.js';
import { inferShapes } from '../shape-inference/index.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { buildPlan } from './build-plan.js';

/** y = If(c) then x + w else x - w; z = Relu(y). */
function ifModel() {
  const model = buildModel({
    inputs: [['x', 'float32', [3]], ['c', 'bool', []]],
    outputs: [['z', 'float32', [3]], ['y', 'float32', [3]]],
    initializers: { w: new Tensor('float32', Float32Array.of(1, 2, 3), [3]) },
    nodes: [],
  });
  const g = model.graph;
  const branch = (op: string) => {
    const b = new Graph({ name: op, opsetImports: g.opsetImports, parent: g, outputs: [{ name: `y_${op}` }] });
    b.addNode({ opType: op, inputs: ['x', 'w'], outputs: [`y_${op}`] });
    return b;
  };
  g.addNode({ opType: 'If', inputs: ['c'], outputs: ['y'], attributes: new Map([['then_branch', { type: 'graph', value: branch('Add') }], ['else_branch', { type: 'graph', value: branch('Sub') }]]) });
  g.addNode({ opType: 'Relu', inputs: ['y'], outputs: ['z'] });
  inferShapes(g);
  return model;
}

/** An EP that takes every node of the graph it is shown as one fused partition, and records what compile() got. */
function takeAll(seen: FusedPartition[]): ExecutionProvider {
  return {
    name: 'fz',
    device: 'fz:0',
    getCapability: (graph) => ({ capabilities: graph.nodes.length ? [{ kind: 'fused', nodes: [...graph.nodes] }] : [], declined: new Map() }),
    compile: async (partition) => {
      seen.push(partition);
      return { run: () => [] };
    },
    copyToDevice: async (t) => t,
    copyToHost: async (t) => t,
  };
}

describe('buildPlan and compiling EPs', () => {
  it('builds no subplans for an If inside a fused partition (the EP runs its branches)', async () => {
    const seen: FusedPartition[] = [];
    const model = ifModel();
    const plan = await buildPlan(model.graph, { providers: [takeAll(seen)], registry: new KernelRegistry(), skipped: [], memoryPattern: false, threads: 1 });
    expect(seen.map((p) => p.nodes.map((n) => n.opType))).toEqual([['If', 'Relu']]);
    expect(plan.subplans.size).toBe(0);
  });

  it('names the graph outputs the session keeps on the device (keptOnDevice), and only those', async () => {
    const seen: FusedPartition[] = [];
    const model = ifModel();
    await buildPlan(model.graph, { providers: [takeAll(seen)], registry: new KernelRegistry(), skipped: [], memoryPattern: false, threads: 1, keepOnDevice: (o) => o === 'z' });
    expect(seen[0].outputNames.sort()).toEqual(['y', 'z']);
    expect(seen[0].keptOnDevice).toEqual(['z']);
    const none: FusedPartition[] = [];
    await buildPlan(ifModel().graph, { providers: [takeAll(none)], registry: new KernelRegistry(), skipped: [], memoryPattern: false, threads: 1 });
    expect(none[0].keptOnDevice).toBeUndefined();
  });
});
