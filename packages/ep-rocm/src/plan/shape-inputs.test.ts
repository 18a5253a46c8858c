import { describe, expect, it } from 'vitest';
import { Tensor, inferShapes, type FusedPartition } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { buildPlanDescription } from './plan-description.js';
import { shapeDecidingInputs } from './shape-inputs.js';

/**
 * A partition whose Reshape target arrives as an input (computed outside it, e.g. on the CPU):
 * x [2, 6] → Add 1 → Reshape(·, target) where target = Concat(t, [-1]).
 */
function partition(): FusedPartition {
  const spec: ModelSpec = {
    inputs: [['x', 'float32', [2, 6]], ['t', 'int64', [1]], ['ids', 'int64', [2]]],
    outputs: [['y', 'float32'], ['g', 'float32']],
    initializers: { one: new Tensor('float32', Float32Array.of(1), []), minus1: new Tensor('int64', BigInt64Array.of(-1n), [1]), table: new Tensor('float32', new Float32Array(20), [10, 2]) },
    nodes: [
      { op: 'Add', inputs: ['x', 'one'], outputs: ['a'], name: 'add' },
      { op: 'Concat', inputs: ['t', 'minus1'], outputs: ['target'], name: 'concat', attributes: { axis: 0 } },
      { op: 'Reshape', inputs: ['a', 'target'], outputs: ['y'], name: 'reshape' },
      // An int64 data input (token ids): its values reach no shape slot.
      { op: 'Gather', inputs: ['table', 'ids'], outputs: ['g'], name: 'gather' },
    ],
  };
  const graph = buildModel(spec).graph;
  inferShapes(graph);
  return { name: 'p', graph, nodes: graph.nodes, inputNames: ['x', 't', 'ids'], outputNames: ['y', 'g'] };
}

describe('inputs that decide shapes inside a GPU partition', () => {
  it('finds the Reshape target through the Concat, not the Gather indices', () => {
    expect(shapeDecidingInputs(partition())).toEqual([1]);
  });

  it('with their values known, the plan has static shapes; without, it cannot be built', () => {
    const p = partition();
    const inputs = [Tensor.zeros('float32', [2, 6]), new Tensor('int64', BigInt64Array.of(3n), [1]), new Tensor('int64', BigInt64Array.of(1n, 2n), [2])];
    const describe = (known?: Map<string, Tensor>) => {
      const g = concreteGraph(p, inputs, known);
      return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
    };
    expect(() => describe()).toThrow(/not static at plan time/);
    const d = describe(new Map([['t', inputs[1]]]));
    expect(d.buffers[d.outputs[0]].dims).toEqual([3, 4]);
  });

  it('follows a bool condition that picks the target (Where), as exporters write for grouped heads', () => {
    const spec: ModelSpec = {
      inputs: [['x', 'float32', [2, 6]], ['grouped', 'bool', [1]]],
      outputs: [['y', 'float32']],
      initializers: { three: new Tensor('int64', BigInt64Array.of(3n, -1n), [2]), four: new Tensor('int64', BigInt64Array.of(4n, -1n), [2]) },
      nodes: [
        { op: 'Where', inputs: ['grouped', 'three', 'four'], outputs: ['target'], name: 'pick' },
        { op: 'Reshape', inputs: ['x', 'target'], outputs: ['y'], name: 'reshape' },
      ],
    };
    const graph = buildModel(spec).graph;
    inferShapes(graph);
    const p: FusedPartition = { name: 'p', graph, nodes: graph.nodes, inputNames: ['x', 'grouped'], outputNames: ['y'] };
    expect(shapeDecidingInputs(p)).toEqual([1]);
    const cond = new Tensor('bool', Uint8Array.of(0), [1]);
    const g = concreteGraph(p, [Tensor.zeros('float32', [2, 6]), cond], new Map([['grouped', cond]]));
    const d = buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false });
    expect(d.buffers[d.outputs[0]].dims).toEqual([4, 3]);
  });
});
