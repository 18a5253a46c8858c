import { describe, expect, it } from 'vitest';
import { Graph, partitionGraph, KernelRegistry, type Node } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { groupPartitions } from './group-partitions.js';
import { migraphxCapability, type CapabilityPolicy } from './migraphx-capability.js';

const policy = (ops: string[], extra: Partial<CapabilityPolicy> = {}): CapabilityPolicy => ({
  operators: new Set(ops),
  operatorSource: 'static',
  minPartitionNodes: 2,
  minPartitionFlops: 0,
  ...extra,
});

/** A float32 graph from `[op, inputs, output]` triples; the last node's output is the graph output. */
function graphOf(nodes: Array<[string, string[], string]>): Graph {
  const inputs = new Set(nodes.flatMap(([, ins]) => ins).filter((n) => !nodes.some(([, , out]) => out === n)));
  return buildModel({
    inputs: [...inputs].map((n) => [n, 'float32', [4]] as [string, 'float32', number[]]),
    outputs: [[nodes[nodes.length - 1][2], 'float32', [4]]],
    nodes: nodes.map(([op, ins, out]) => ({ op, inputs: ins, outputs: [out], name: out })),
  }).graph;
}

const names = (groups: Node[][]) => groups.map((g) => g.map((n) => n.name));

/** Independent check: is there a path from the group, through at least one outside node, back into it? */
function hasCycleThroughOutside(graph: Graph, group: Node[]): boolean {
  const inGroup = new Set(group);
  const consumers = graph.consumers();
  const next = (n: Node) => n.outputs.flatMap((o) => consumers.get(o) ?? []);
  // Every outside node reachable from the group…
  const reached = new Set<Node>();
  const frontier = group.flatMap(next).filter((n) => !inGroup.has(n));
  while (frontier.length) {
    const n = frontier.pop()!;
    if (reached.has(n)) continue;
    reached.add(n);
    for (const c of next(n)) if (!inGroup.has(c)) frontier.push(c);
  }
  // …must not feed the group.
  return [...reached].some((n) => next(n).some((c) => inGroup.has(c)));
}

function isConnected(group: Node[]): boolean {
  const seen = new Set([group[0]]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of group) {
      if (seen.has(n)) continue;
      const touches = [...seen].some((s) => s.outputs.some((o) => n.inputs.includes(o)) || n.outputs.some((o) => s.inputs.includes(o)));
      if (touches) {
        seen.add(n);
        grew = true;
      }
    }
  }
  return seen.size === group.length;
}

describe('groupPartitions', () => {
  it('keeps a supported chain in one partition', () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Sigmoid', ['a'], 'b'], ['Add', ['a', 'b'], 'c']]);
    expect(names(groupPartitions(g, new Set(g.nodes)))).toEqual([['a', 'b', 'c']]);
  });

  it('cuts around an unsupported node', () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Neg', ['a'], 'b'], ['Exp', ['b'], 'c'], ['Abs', ['c'], 'd']]);
    const candidates = new Set(g.nodes.filter((n) => n.opType !== 'Exp'));
    expect(names(groupPartitions(g, candidates))).toEqual([['a', 'b'], ['d']]);
  });

  it('does not fuse across an unsupported detour (that would be a cycle)', () => {
    // a → e(unsupported) → c and a → c directly: {a, c} would need e both after and before it.
    const g = graphOf([['Relu', ['x'], 'a'], ['Exp', ['a'], 'e'], ['Add', ['a', 'e'], 'c'], ['Neg', ['c'], 'd']]);
    const groups = groupPartitions(g, new Set(g.nodes.filter((n) => n.opType !== 'Exp')));
    expect(names(groups)).toEqual([['a'], ['c', 'd']]);
    for (const group of groups) expect(hasCycleThroughOutside(g, group)).toBe(false);
  });

  it('merges two branches where they meet', () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Exp', ['y'], 'e'], ['Neg', ['e'], 'b'], ['Add', ['a', 'b'], 'c']]);
    expect(names(groupPartitions(g, new Set(g.nodes.filter((n) => n.opType !== 'Exp'))))).toEqual([['a', 'b', 'c']]);
  });

  it('gives connected, acyclic groups covering every candidate once, on random graphs', () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 200; trial++) {
      const count = 3 + Math.floor(random() * 14);
      const spec: Array<[string, string[], string]> = [];
      for (let i = 0; i < count; i++) {
        const pick = () => (i === 0 || random() < 0.15 ? 'x' : `v${Math.floor(random() * i)}`);
        const binary = random() < 0.5;
        spec.push([binary ? 'Add' : 'Relu', binary ? [pick(), pick()] : [pick()], `v${i}`]);
      }
      const g = graphOf(spec);
      const candidates = new Set(g.nodes.filter(() => random() < 0.7));
      const groups = groupPartitions(g, candidates);
      expect(groups.flat().sort((a, b) => a.id - b.id)).toEqual([...candidates].sort((a, b) => a.id - b.id));
      for (const group of groups) {
        expect(hasCycleThroughOutside(g, group), `trial ${trial}: ${group.map((n) => n.name)}`).toBe(false);
        expect(isConnected(group), `trial ${trial}: ${group.map((n) => n.name)}`).toBe(true);
      }
    }
  });
});

describe('migraphxCapability', () => {
  it('declines unknown ops, tiny partitions and string tensors, each with its reason', () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Neg', ['a'], 'b'], ['Exp', ['b'], 'c'], ['Abs', ['c'], 'd']]);
    const result = migraphxCapability(g, new Set(), policy(['Relu', 'Neg', 'Abs']));
    expect(result.capabilities.map((c) => [c.kind, c.nodes.map((n) => n.name)])).toEqual([['fused', ['a', 'b']]]);
    const why = new Map([...result.declined].map(([n, r]) => [n.name, r]));
    expect(why.get('c')).toEqual({ kind: 'op', message: "MIGraphX's ONNX parser (static table) has no Exp" });
    expect(why.get('d')).toEqual({ kind: 'partition', message: 'partition too small to pay for a compile (1 node, minPartitionNodes is 2)' });
    const withLibrary = migraphxCapability(g, new Set(), policy(['Relu'], { operatorSource: 'library', minPartitionNodes: 1 }));
    expect(withLibrary.declined.get(g.nodes[1])?.message).toBe("the loaded library's ONNX parser has no Neg");
  });

  it('leaves assigned nodes alone', () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Neg', ['a'], 'b'], ['Abs', ['b'], 'c']]);
    const result = migraphxCapability(g, new Set([g.nodes[1]]), policy(['Relu', 'Neg', 'Abs'], { minPartitionNodes: 1 }));
    expect(result.capabilities.map((c) => c.nodes.map((n) => n.name))).toEqual([['a'], ['c']]);
  });

  it('applies the FLOP threshold only where the count is known', () => {
    const g = buildModel({
      inputs: [['x', 'float32', [8, 16]], ['w', 'float32', [16, 4]]],
      outputs: [['y', 'float32', [8, 4]]],
      nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['m'] }, { op: 'Relu', inputs: ['m'], outputs: ['y'] }],
    }).graph;
    g.valueInfo.set('m', { name: 'm', type: { kind: 'tensor', elemType: 'float32', shape: [8, 4] } });
    const ops = ['MatMul', 'Relu'];
    // MatMul 2·8·4·16 = 1024, Relu 32.
    expect(migraphxCapability(g, new Set(), policy(ops, { minPartitionFlops: 1057 })).declined.get(g.nodes[0])?.message).toBe(
      'partition too small to pay for a compile (about 1056 FLOPs, minPartitionFlops is 1057)',
    );
    expect(migraphxCapability(g, new Set(), policy(ops, { minPartitionFlops: 1056 })).capabilities).toHaveLength(1);
    g.valueInfo.delete('m');
    g.outputs[0].type = undefined;
    expect(migraphxCapability(g, new Set(), policy(ops, { minPartitionFlops: 10 ** 9 })).capabilities).toHaveLength(1);
  });

  it('declines tensors MIGraphX has no type for', () => {
    const g = buildModel({
      inputs: [['x', 'string', [2]]],
      outputs: [['y', 'string', [2]]],
      nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
    }).graph;
    expect(migraphxCapability(g, new Set(), policy(['Identity'], { minPartitionNodes: 1 })).declined.get(g.nodes[0])).toEqual({
      kind: 'dtype',
      message: "'x' is string, which MIGraphX has no type for",
    });
  });

  it('proposes partitions the core partitioner accepts', async () => {
    const g = graphOf([['Relu', ['x'], 'a'], ['Exp', ['a'], 'e'], ['Add', ['a', 'e'], 'c'], ['Neg', ['c'], 'd'], ['Abs', ['d'], 'f']]);
    const ep = {
      name: 'fake',
      getCapability: (graph: Graph, ctx: { assigned: ReadonlySet<Node> }) => migraphxCapability(graph, ctx.assigned, policy(['Relu', 'Add', 'Neg', 'Abs'], { minPartitionNodes: 1 })),
      compile: async () => ({ run: () => [] }),
    };
    const rest = { name: 'rest', getCapability: (graph: Graph, ctx: { assigned: ReadonlySet<Node> }) => ({ capabilities: graph.nodes.filter((n) => !ctx.assigned.has(n)).map((n) => ({ kind: 'fused' as const, nodes: [n] })), declined: new Map() }), compile: async () => ({ run: () => [] }) };
    const plan = await partitionGraph(g, [ep, rest], new KernelRegistry());
    const fused = plan.units.filter((u) => u.kind === 'fused' && u.ep.name === 'fake');
    expect(fused.map((u) => (u.kind === 'fused' ? u.nodes.map((n) => n.name) : []))).toEqual([['a'], ['c', 'd', 'f']]);
    expect(plan.declines.get(g.nodes[0])).toBeUndefined();
  });
});
