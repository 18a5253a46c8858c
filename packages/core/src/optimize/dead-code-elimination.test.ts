import { describe, expect, it } from 'vitest';
import { Graph } from '../ir/graph.js';
import { f32, input, newGraph, node } from './fixtures.test.util.js';
import { eliminateDeadCode } from './dead-code-elimination.js';
import { optimizeGraph } from './optimize-graph.js';
import { tinyEvaluator } from './fixtures.test.util.js';

const scopeOf = (graph: Graph) => ({ graph, protectedNames: new Set(graph.outputs.map((o) => o.name)) });

describe('dead-code elimination', () => {
  it('removes nodes that reach no output and initializers nothing reads, but keeps graph inputs', () => {
    const g = newGraph({
      inputs: [input('x'), input('unused')],
      outputs: ['y'],
      initializers: { w: f32([1]), stale: f32([2]) },
    });
    node(g, 'Mul', ['x', 'w'], ['y']);
    node(g, 'Add', ['x', 'stale'], ['dead1']);
    node(g, 'Mul', ['dead1', 'dead1'], ['dead2']);
    g.valueInfo.set('dead1', { name: 'dead1' });
    const r = eliminateDeadCode(scopeOf(g));
    expect(g.nodes.map((n) => n.name)).toEqual(['y']);
    expect(r.nodes).toEqual(['dead1', 'dead2']);
    expect(r.initializersRemoved).toEqual(['stale']);
    expect(g.inputs.map((v) => v.name)).toEqual(['x', 'unused']);
    expect(g.valueInfo.has('dead1')).toBe(false);
  });

  it('keeps a node whose output is read only inside a subgraph', () => {
    const g = newGraph({ inputs: [input('x'), input('cond')], outputs: ['out'], initializers: { k: f32([2]) } });
    node(g, 'Mul', ['x', 'x'], ['sq']);
    node(g, 'Add', ['x', 'x'], ['dbl']);
    node(g, 'Add', ['x', 'k'], ['unread']);
    const thenG = new Graph({ name: 'then', outputs: [{ name: 't' }], opsetImports: new Map(), parent: g });
    node(thenG, 'Add', ['sq', 'k'], ['t']);
    // A subgraph output may name an outer value directly; that is a read too.
    const elseG = new Graph({ name: 'else', outputs: [{ name: 'dbl' }], opsetImports: new Map(), parent: g });
    node(g, 'If', ['cond'], ['out'], {
      attributes: { then_branch: { type: 'graph', value: thenG }, else_branch: { type: 'graph', value: elseG } },
    });
    eliminateDeadCode(scopeOf(g));
    expect(g.nodes.map((n) => n.name)).toEqual(['sq', 'dbl', 'out']);
    expect(g.initializers.has('k')).toBe(true);
  });

  it('drops dead code inside a subgraph first, which can make outer values dead', async () => {
    const g = newGraph({ inputs: [input('x'), input('cond')], outputs: ['out'] });
    node(g, 'Mul', ['x', 'x'], ['only_for_dead_inner']);
    const body = new Graph({ name: 'then', inputs: [], outputs: [{ name: 't' }], opsetImports: new Map(), parent: g });
    node(body, 'Add', ['x', 'x'], ['t']);
    node(body, 'Mul', ['only_for_dead_inner', 'x'], ['inner_dead']);
    const elseG = new Graph({ name: 'else', outputs: [{ name: 'e' }], opsetImports: new Map(), parent: g });
    node(elseG, 'Mul', ['x', 'x'], ['e']);
    node(g, 'If', ['cond'], ['out'], {
      name: 'if',
      attributes: { then_branch: { type: 'graph', value: body }, else_branch: { type: 'graph', value: elseG } },
    });
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });
    expect(body.nodes.map((n) => n.name)).toEqual(['t']);
    expect(g.nodes.map((n) => n.name)).toEqual(['if']);
    expect(report.passes.find((p) => p.name === 'dead-code-elimination')!.nodes).toEqual([
      'if.then_branch/inner_dead',
      'only_for_dead_inner',
    ]);
  });
});
