import { describe, expect, it } from 'vitest';
import { Graph, type AttributeValue } from '../ir/graph.js';
import { eliminateCommonSubexpressions } from './common-subexpression.js';
import { f32, i64, input, newGraph, node } from './fixtures.test.util.js';

const scopeOf = (graph: Graph) => ({ graph, protectedNames: new Set(graph.outputs.map((o) => o.name)) });
const ints = (value: number[]): AttributeValue => ({ type: 'ints', value });

describe('common sub-expression elimination', () => {
  it('merges duplicates, collapsing chains of them', () => {
    const g = newGraph({ inputs: [input('x'), input('y')], outputs: ['out'] });
    node(g, 'Shape', ['x'], ['s1']);
    node(g, 'Gather', ['s1', 'y'], ['g1'], { attributes: { axis: { type: 'int', value: 0 } } });
    node(g, 'Shape', ['x'], ['s2']);
    node(g, 'Gather', ['s2', 'y'], ['g2'], { attributes: { axis: { type: 'int', value: 0 } } });
    node(g, 'Add', ['g1', 'g2'], ['out']);
    const res = eliminateCommonSubexpressions(scopeOf(g));
    expect(res.nodes).toEqual(['s2', 'g2']);
    expect(g.nodes.map((n) => n.name)).toEqual(['s1', 'g1', 'out']);
    expect(g.nodes[2].inputs).toEqual(['g1', 'g1']);
  });

  it('compares attributes deeply: equal tensors merge, different values do not', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['a', 'b', 'c', 'd', 'e', 'f'] });
    const pad = (v: number[]) => ({ pads: { type: 'tensor', value: i64(v) } as AttributeValue });
    node(g, 'Custom', ['x'], ['t1'], { attributes: pad([1, 2]) });
    node(g, 'Custom', ['x'], ['t2'], { attributes: pad([1, 2]) });
    node(g, 'Custom', ['x'], ['t3'], { attributes: pad([1, 3]) });
    node(g, 'Transpose', ['x'], ['p1'], { attributes: { perm: ints([1, 0]) } });
    node(g, 'Transpose', ['x'], ['p2'], { attributes: { perm: ints([0, 1]) } });
    node(g, 'LeakyRelu', ['x'], ['l1'], { attributes: { alpha: { type: 'float', value: 0 } } });
    node(g, 'LeakyRelu', ['x'], ['l2'], { attributes: { alpha: { type: 'float', value: -0 } } });
    node(g, 'Concat', ['t1', 't2', 't3', 'p1', 'p2', 'l1', 'l2'], ['a'], { attributes: { axis: { type: 'int', value: 0 } } });
    const res = eliminateCommonSubexpressions(scopeOf(g));
    expect(res.nodes).toEqual(['t2']);
    expect(g.nodes.at(-1)!.inputs).toEqual(['t1', 't1', 't3', 'p1', 'p2', 'l1', 'l2']);
  });

  it('never merges random ops or nodes with subgraphs', () => {
    const g = newGraph({ inputs: [input('x'), input('cond')], outputs: ['a', 'b', 'c', 'd', 'e', 'f'] });
    const attrs = { shape: ints([2]), seed: { type: 'float', value: 1 } as AttributeValue };
    node(g, 'RandomUniform', [], ['a'], { attributes: attrs });
    node(g, 'RandomUniform', [], ['b'], { attributes: attrs });
    node(g, 'RandomUniformLike', ['x'], ['c']);
    node(g, 'RandomUniformLike', ['x'], ['d']);
    const body = new Graph({ name: 'body', outputs: [{ name: 'x' }], opsetImports: new Map(), parent: g });
    const branches = { then_branch: { type: 'graph', value: body }, else_branch: { type: 'graph', value: body } } as const;
    node(g, 'If', ['cond'], ['e'], { attributes: branches });
    node(g, 'If', ['cond'], ['f'], { attributes: branches });
    const res = eliminateCommonSubexpressions(scopeOf(g));
    expect(res.nodes).toEqual([]);
    expect(g.nodes).toHaveLength(6);
  });

  it('keeps a duplicate whose output is a graph output, and merges one whose original is', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['first', 'second', 'z'], initializers: { k: f32([1]) } });
    node(g, 'Add', ['x', 'k'], ['first']);
    node(g, 'Add', ['x', 'k'], ['second']);
    node(g, 'Add', ['x', 'k'], ['third']);
    node(g, 'Neg', ['third'], ['z']);
    const res = eliminateCommonSubexpressions(scopeOf(g));
    expect(res.nodes).toEqual(['third']);
    expect(res.skipped.map((s) => s.node)).toEqual(['second']);
    expect(g.nodes.map((n) => n.name)).toEqual(['first', 'second', 'z']);
    expect(g.nodes[2].inputs).toEqual(['first']);
  });

  it('does not merge nodes that differ in which optional outputs they produce', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['o'] });
    node(g, 'TopK', ['x', 'k'], ['v1', '']);
    node(g, 'TopK', ['x', 'k'], ['v2', 'i2']);
    node(g, 'Concat', ['v1', 'v2', 'i2'], ['o']);
    expect(eliminateCommonSubexpressions(scopeOf(g)).nodes).toEqual([]);
  });
});
