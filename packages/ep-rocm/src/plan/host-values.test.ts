import { describe, expect, it } from 'vitest';
import { KernelRegistry, Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { rocmCapability, rocmKernelDefs } from '../capability.js';
import { ROCM_KERNEL_TABLE } from '../kernel-table.js';
import { concreteGraph } from '../rocm-partition.js';
import { planTimeKnown } from './host-values.js';
import { buildPlanDescription } from './plan-description.js';

const i64 = (...v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);

// An exporter's flatten of dynamic dims: y = Relu(Reshape(x, Concat(Gather(Shape(x), 0), [-1]))),
// plus an Equal/Where on the batch size and a ConstantOfShape of the batch, read by the output.
const spec: ModelSpec = {
  inputs: [['x', 'float32', ['b', 3, 'h', 'w']]],
  outputs: [['y', 'float32'], ['mask', 'float32']],
  initializers: { zero: i64(0), minus1: i64(-1), one: i64(1) },
  nodes: [
    { op: 'Shape', inputs: ['x'], outputs: ['shape'], name: 'shape' },
    { op: 'Gather', inputs: ['shape', 'zero'], outputs: ['batch'], name: 'gather' },
    { op: 'Concat', inputs: ['batch', 'minus1'], outputs: ['target'], name: 'concat', attributes: { axis: 0 } },
    { op: 'Equal', inputs: ['batch', 'one'], outputs: ['single'], name: 'equal' },
    { op: 'Where', inputs: ['single', 'one', 'batch'], outputs: ['rows'], name: 'where' },
    { op: 'ConstantOfShape', inputs: ['rows'], outputs: ['mask'], name: 'cos', attributes: { value: new Tensor('float32', Float32Array.of(1), [1]) } },
    { op: 'Reshape', inputs: ['x', 'target'], outputs: ['flat'], name: 'reshape' },
    { op: 'Relu', inputs: ['flat'], outputs: ['y'], name: 'relu' },
  ],
};

function graphOf() {
  const g = buildModel(spec).graph;
  inferShapes(g);
  return g;
}

describe('shape arithmetic on the host', () => {
  it('knows at claim time which values the plan will know', () => {
    const g = graphOf();
    for (const v of ['shape', 'batch', 'target', 'single', 'rows', 'mask']) expect(planTimeKnown(g, v), v).toBe(true);
    for (const v of ['x', 'flat', 'y']) expect(planTimeKnown(g, v), v).toBe(false);
  });

  it('claims the whole chain as one GPU partition', () => {
    const g = graphOf();
    const registry = new KernelRegistry();
    for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
    const { capabilities, declined } = rocmCapability(g, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
    expect([...declined.values()]).toEqual([]);
    expect(capabilities.map((c) => c.nodes.length)).toEqual([8]);
  });

  it('folds the chain into constants when the plan is built: no steps for it, a copy for the mask output', () => {
    const g = graphOf();
    const partition: FusedPartition = { name: 'p', graph: g, nodes: g.nodes, inputNames: ['x'], outputNames: ['y', 'mask'] };
    const concrete = concreteGraph(partition, [Tensor.zeros('float32', [2, 3, 4, 5])]);
    expect(Array.from(concrete.initializers.get('target')!.data as BigInt64Array)).toEqual([2n, -1n]);
    expect(Array.from(concrete.initializers.get('rows')!.data as BigInt64Array)).toEqual([2n]);
    expect(Array.from(concrete.initializers.get('mask')!.data as Float32Array)).toEqual([1, 1]);
    // The partition's own graph keeps its initializers.
    expect(g.initializers.has('target')).toBe(false);
    const d = buildPlanDescription(concrete, partition.nodes, partition.inputNames, partition.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
    expect(d.steps.map((s) => s.op)).toEqual(['Relu', 'Copy']);
    expect(d.buffers[d.steps[0].outputs[0]].dims).toEqual([2, 60]);
    const batch1 = concreteGraph(partition, [Tensor.zeros('float32', [1, 3, 2, 2])]);
    expect(Array.from(batch1.initializers.get('rows')!.data as BigInt64Array)).toEqual([1n]);
  });
});
