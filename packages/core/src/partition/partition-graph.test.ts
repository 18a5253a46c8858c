import { describe, expect, it } from 'vitest';
import { InferenceSession } from '../session/inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import type { ExecutionProvider, FusedPartition } from '../ep/execution-provider.js';
import type { Node } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';

const f32 = (data: number[]) => new Tensor('float32', Float32Array.from(data), [data.length]);

/** A compiling EP that fuses every node whose op is in `ops` into one partition and interprets it. */
function fusingProvider(ops: string[], pick?: (nodes: Node[]) => Node[][]): ExecutionProvider & { compiled: FusedPartition[] } {
  const compiled: FusedPartition[] = [];
  const host = hostTestProvider('fuser-kernels', ops);
  return {
    name: 'fuser',
    compiled,
    getCapability(graph, { assigned }) {
      const mine = graph.nodes.filter((n) => !assigned.has(n) && ops.includes(n.opType));
      const groups = pick ? pick(mine) : [mine];
      return { capabilities: groups.map((nodes) => ({ kind: 'fused' as const, nodes })), declined: new Map() };
    },
    async compile(partition) {
      compiled.push(partition);
      // Interpret the partition's nodes with the host test kernels, in order.
      return {
        async run(inputs) {
          const values = new Map<string, Tensor>();
          partition.inputNames.forEach((n, i) => values.set(n, inputs[i] as Tensor));
          for (const [n, t] of partition.graph.initializers) values.set(n, t);
          for (const node of partition.nodes) {
            const def = host.kernels!.find((k) => k.opType === node.opType)!;
            const kernel = def.create({ node } as never);
            const ins = node.inputs.map((n) => values.get(n));
            const [out] = (await kernel.run({
              node,
              inputs: ins,
              input: (i: number) => ins[i]!,
              optionalInput: (i: number) => ins[i],
              sequenceInput: () => [],
              output: <T extends DataType>(_i: number, type: T, dims: readonly number[]) => Tensor.zeros(type, dims),
              runSubgraph: async () => [],
              threads: 1,
            })) as Tensor[];
            values.set(node.outputs[0], out);
          }
          return partition.outputNames.map((n) => values.get(n)!);
        },
      };
    },
  };
}

const chain = () =>
  buildModel({
    inputs: [['x', 'float32', [4]]],
    outputs: [['y', 'float32', [4]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'relu' },
      { op: 'Add', inputs: ['a', 'x'], outputs: ['b'], name: 'add' },
      { op: 'Neg', inputs: ['b'], outputs: ['c'], name: 'neg' },
      { op: 'Mul', inputs: ['c', 'a'], outputs: ['y'], name: 'mul' },
    ],
  });

describe('partitionGraph', () => {
  it('hands fused capabilities to compile() and runs them', async () => {
    const fuser = fusingProvider(['Relu', 'Add']);
    const s = await InferenceSession.fromModel(chain(), { executionProviders: [fuser, hostTestProvider()], disableCpuFallback: true });
    expect(s.placement.nodes.map((n) => `${n.name}:${n.ep}:${n.partition ?? ''}`)).toEqual([
      'relu:fuser:fuser_partition_0',
      'add:fuser:fuser_partition_0',
      'neg:hosttest:',
      'mul:hosttest:',
    ]);
    const [p] = fuser.compiled;
    expect(p.inputNames).toEqual(['x']);
    // 'a' is read outside the partition (by mul), 'b' by neg.
    expect(p.outputNames.sort()).toEqual(['a', 'b']);
    const out = await s.run({ x: f32([1, -2, 3, -4]) });
    // a = relu(x); b = a + x; c = -b; y = c * a
    const x = [1, -2, 3, -4];
    const expected = x.map((v) => {
      const a = Math.max(0, v);
      return -(a + v) * a;
    });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual(expected.map((v) => (Object.is(v, -0) ? -0 : v)));
  });

  it('feeds a fused partition its inputs in inputNames order, initializers carried inside', async () => {
    const fuser = fusingProvider(['Mul', 'Add']);
    const model = buildModel({
      inputs: [['x', 'float32', [4]]],
      outputs: [['y', 'float32', [4]]],
      // The partition reads the initializer 'w' before the graph input 'x'.
      nodes: [
        { op: 'Mul', inputs: ['w', 'x'], outputs: ['m'], name: 'mul' },
        { op: 'Add', inputs: ['m', 'x'], outputs: ['y'], name: 'add' },
      ],
      initializers: { w: f32([2, 2, 2, 2]) },
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [fuser, hostTestProvider()], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
    expect(fuser.compiled[0].inputNames).toEqual(['x']);
    expect([...fuser.compiled[0].graph.initializers.keys()]).toEqual(['w']);
    const out = await s.run({ x: f32([1, 2, 3, 4]) });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([3, 6, 9, 12]);
  });

  it('declines a fused group that would create a cycle, with the reason', async () => {
    // relu and mul fused while neg (outside) sits between them: relu → add → neg → mul.
    const fuser = fusingProvider(['Relu', 'Mul'], (nodes) => [nodes]);
    const s = await InferenceSession.fromModel(chain(), { executionProviders: [fuser, hostTestProvider()], disableCpuFallback: true });
    expect(s.placement.nodes.every((n) => n.ep === 'hosttest')).toBe(true);
    const relu = s.placement.nodes.find((n) => n.name === 'relu')!;
    expect(relu.declined).toEqual([{ ep: 'fuser', reason: { kind: 'partition', message: expect.stringMatching(/cycle/) } }]);
  });

  it('records a reason for every EP before the one that took a node', async () => {
    const only = (name: string, ops: string[]) => hostTestProvider(name, ops);
    const s = await InferenceSession.fromModel(chain(), {
      executionProviders: [only('first', ['Neg']), only('second', ['Relu', 'Neg']), hostTestProvider()],
      disableCpuFallback: true,
    });
    const byName = Object.fromEntries(s.placement.nodes.map((n) => [n.name, n]));
    expect(byName.neg.ep).toBe('first');
    expect(byName.relu.ep).toBe('second');
    expect(byName.relu.declined.map((d) => d.ep)).toEqual(['first']);
    expect(byName.add.ep).toBe('hosttest');
    expect(byName.add.declined.map((d) => `${d.ep}:${d.reason.kind}`)).toEqual(['first:op', 'second:op']);
    const cov = Object.fromEntries(s.placement.providers.map((p) => [p.name, p.nodeCoverage]));
    expect(cov).toEqual({ second: 0.25, first: 0.25, hosttest: 0.5 });
  });
});
