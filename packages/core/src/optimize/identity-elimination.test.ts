import { describe, expect, it } from 'vitest';
import { Graph } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { assertTopological, input, newGraph, node } from './fixtures.test.util.js';
import { eliminateIdentities } from './identity-elimination.js';

const scopeOf = (graph: Graph, extra: string[] = []) => ({
  graph,
  protectedNames: new Set([...graph.outputs.map((o) => o.name), ...extra]),
});

describe('identity elimination', () => {
  it('rewires readers of an Identity to its input', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['y'] });
    node(g, 'Relu', ['x'], ['r']);
    node(g, 'Identity', ['r'], ['i']);
    node(g, 'Mul', ['i', 'i'], ['y']);
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual(['i']);
    expect(g.nodes.map((n) => n.opType)).toEqual(['Relu', 'Mul']);
    expect(g.nodes[1].inputs).toEqual(['r', 'r']);
  });

  it('keeps graph outputs intact by renaming the producer when that is safe', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['y', 'z'] });
    node(g, 'Relu', ['x'], ['r'], { name: 'relu' });
    node(g, 'Identity', ['r'], ['y'], { name: 'id' });
    node(g, 'Neg', ['r'], ['z'], { name: 'neg' });
    eliminateIdentities(scopeOf(g));
    expect(g.outputs.map((o) => o.name)).toEqual(['y', 'z']);
    expect(g.nodes.map((n) => n.name)).toEqual(['relu', 'neg']);
    expect(g.nodes[0].outputs).toEqual(['y']);
    expect(g.nodes[1].inputs).toEqual(['y']);
    assertTopological(g);
  });

  it('keeps an Identity that copies a graph input, an initializer or another graph output to a graph output', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['a', 'b', 'c', 'd'], initializers: { w: new Tensor('float32', [1], [1]) } });
    node(g, 'Identity', ['x'], ['a']);
    node(g, 'Identity', ['w'], ['b']);
    node(g, 'Relu', ['x'], ['c']);
    node(g, 'Identity', ['c'], ['d']);
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual([]);
    expect(res.skipped.map((s) => s.node)).toEqual(['a', 'b', 'd']);
    expect(g.nodes).toHaveLength(4);
  });

  it('removes Dropout only when its mask is unused and training mode is off', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['y1', 'y2', 'y3', 'm2'] });
    g.initializers.set('train', new Tensor('bool', Uint8Array.of(1), []));
    g.initializers.set('infer', new Tensor('bool', Uint8Array.of(0), []));
    node(g, 'Dropout', ['x'], ['d1', 'm1'], { name: 'drop1' });
    node(g, 'Relu', ['d1'], ['y1']);
    node(g, 'Dropout', ['x'], ['d2', 'm2'], { name: 'drop2' });
    node(g, 'Relu', ['d2'], ['y2']);
    node(g, 'Dropout', ['x', '', 'train'], ['d3'], { name: 'drop3' });
    node(g, 'Dropout', ['d3', '', 'infer'], ['d4'], { name: 'drop4' });
    node(g, 'Relu', ['d4'], ['y3']);
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual(['drop1', 'drop4']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y1')!.inputs).toEqual(['x']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y3')!.inputs).toEqual(['d3']);
  });

  it('removes a Pad whose pads are all zero (input or attribute), and keeps one that pads', () => {
    const g = newGraph({ inputs: [input('x')], outputs: ['y1', 'y2', 'y3', 'y4'] });
    g.initializers.set('zeros', new Tensor('int64', new BigInt64Array(8), [8]));
    g.initializers.set('ones', new Tensor('int64', BigInt64Array.from([0n, 0n, 1n, 1n, 0n, 0n, 1n, 1n]), [8]));
    node(g, 'Pad', ['x', 'zeros'], ['p1'], { name: 'zero-input' });
    node(g, 'Relu', ['p1'], ['y1']);
    node(g, 'Pad', ['x', 'ones'], ['p2'], { name: 'pads' });
    node(g, 'Relu', ['p2'], ['y2']);
    node(g, 'Pad', ['x'], ['p3'], { name: 'zero-attribute', attributes: { pads: { type: 'ints', value: [0, 0, 0, 0] } } });
    node(g, 'Relu', ['p3'], ['y3']);
    node(g, 'Pad', ['x', 'runtime'], ['p4'], { name: 'runtime-pads' });
    node(g, 'Relu', ['p4'], ['y4']);
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual(['zero-input', 'zero-attribute']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y1')!.inputs).toEqual(['x']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y2')!.inputs).toEqual(['p2']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y3')!.inputs).toEqual(['x']);
    expect(g.nodes.find((n) => n.outputs[0] === 'y4')!.inputs).toEqual(['p4']);
  });

  it('renames reads inside subgraphs, and keeps the Identity when a subgraph shadows the input name', () => {
    const g = newGraph({ inputs: [input('x'), input('cond')], outputs: ['o1', 'o2'] });
    node(g, 'Relu', ['x'], ['r']);
    node(g, 'Identity', ['r'], ['i1'], { name: 'id1' });
    node(g, 'Identity', ['r'], ['i2'], { name: 'id2' });
    const reads = new Graph({ name: 'reads', outputs: [{ name: 's1' }], opsetImports: new Map(), parent: g });
    node(reads, 'Neg', ['i1'], ['s1']);
    node(g, 'If', ['cond'], ['o1'], { name: 'if1', attributes: { then_branch: { type: 'graph', value: reads }, else_branch: { type: 'graph', value: reads } } });
    const shadows = new Graph({ name: 'shadows', outputs: [{ name: 's2' }], opsetImports: new Map(), parent: g });
    node(shadows, 'Neg', ['x'], ['r']); // a local 'r': reading 'r' here would not mean the outer 'r'
    node(shadows, 'Add', ['r', 'i2'], ['s2']);
    node(g, 'If', ['cond'], ['o2'], { name: 'if2', attributes: { then_branch: { type: 'graph', value: shadows }, else_branch: { type: 'graph', value: shadows } } });
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual(['id1']);
    expect(reads.nodes[0].inputs).toEqual(['r']);
    expect(shadows.nodes[1].inputs).toEqual(['r', 'i2']);
    expect(res.skipped.map((s) => s.node)).toEqual(['id2']);
  });

  it('keeps an Identity whose output a subgraph returns directly', () => {
    const g = newGraph({ inputs: [input('x'), input('cond')], outputs: ['o'] });
    node(g, 'Relu', ['x'], ['r']);
    node(g, 'Identity', ['r'], ['i'], { name: 'id' });
    const returnsI = new Graph({ name: 'direct', outputs: [{ name: 'i' }], opsetImports: new Map(), parent: g });
    node(g, 'If', ['cond'], ['o'], { attributes: { then_branch: { type: 'graph', value: returnsI }, else_branch: { type: 'graph', value: returnsI } } });
    const res = eliminateIdentities(scopeOf(g));
    expect(res.nodes).toEqual([]);
    expect(g.nodes.map((n) => n.opType)).toEqual(['Relu', 'Identity', 'If']);
    assertTopological(g);
  });
});
