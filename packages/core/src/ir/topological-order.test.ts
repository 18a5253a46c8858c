import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { encodeModel, loadModel } from '../onnx/index.js';
import { buildModel } from '../testing/build-model.js';
import { Tensor } from '../tensor/tensor.js';
import { Graph, type Node } from './graph.js';
import { sortGraphTopologically } from './topological-order.js';
import { findMalformation } from './well-formed.js';

function graph(inputs: string[], outputs: string[], nodes: Array<[op: string, ins: string[], outs: string[]]>, initializers: string[] = []): Graph {
  const g = new Graph({
    name: 'g',
    inputs: inputs.map((name) => ({ name })),
    outputs: outputs.map((name) => ({ name })),
    initializers: new Map(initializers.map((n) => [n, new Tensor('float32', Float32Array.of(1), [1])])),
    opsetImports: new Map([['', 17]]),
  });
  for (const [opType, ins, outs] of nodes) g.addNode({ opType, inputs: ins, outputs: outs, name: outs[0] ?? opType });
  return g;
}

const names = (nodes: readonly Node[]) => nodes.map((n) => n.name);

function failure(f: () => void): SwitchyardError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    return e as SwitchyardError;
  }
  throw new Error('expected a SwitchyardError');
}

/** An If node whose branches are given; its own inputs are only the condition. */
function ifNode(g: Graph, cond: string, out: string, then: Graph, otherwise: Graph): void {
  g.addNode({ opType: 'If', name: out, inputs: [cond], outputs: [out], attributes: new Map([['then_branch', { type: 'graph', value: then }], ['else_branch', { type: 'graph', value: otherwise }]]) });
}

describe('sortGraphTopologically', () => {
  it('leaves a sorted graph exactly as it was', () => {
    const g = graph(['x'], ['y', 'z'], [['Relu', ['x'], ['a']], ['Neg', ['x'], ['b']], ['Add', ['a', 'b'], ['y']], ['Mul', ['y', 'w'], ['z']]], ['w']);
    const before = [...g.nodes];
    sortGraphTopologically(g);
    expect(g.nodes).toEqual(before);
    expect(g.nodes.every((n, i) => n === before[i])).toBe(true);
  });

  it('moves Casts a float16 converter appended in front of their readers, keeping the rest in file order', () => {
    // keep_io_types conversion: the input Cast and the output Cast come last in the file.
    const g = graph(['x'], ['y'], [
      ['Conv', ['x16', 'w'], ['c']],
      ['Relu', ['c'], ['r']],
      ['Neg', ['x16'], ['n']],
      ['Add', ['r', 'n'], ['y16']],
      ['Cast', ['x'], ['x16']],
      ['Cast', ['y16'], ['y']],
    ], ['w']);
    sortGraphTopologically(g);
    expect(names(g.nodes)).toEqual(['x16', 'c', 'r', 'n', 'y16', 'y']);
    expect(findMalformation(g)).toBeUndefined();
  });

  it('moves a node only as far forward as its first reader needs', () => {
    const g = graph(['x'], ['d', 'e'], [['Relu', ['x'], ['a']], ['Neg', ['b'], ['c']], ['Abs', ['x'], ['d']], ['Exp', ['a'], ['b']], ['Add', ['c', 'd'], ['e']]]);
    sortGraphTopologically(g);
    expect(names(g.nodes)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('ignores omitted optional inputs', () => {
    const g = graph(['x'], ['y'], [['Clip', ['x', '', 'hi'], ['y']], ['Constant', [], ['hi']]]);
    sortGraphTopologically(g);
    expect(names(g.nodes)).toEqual(['hi', 'y']);
  });

  it('puts a node holding a subgraph after the outer values the subgraph reads, and sorts the subgraph', () => {
    const g = graph(['x', 'cond'], ['y'], []);
    const then = new Graph({ name: 'then', opsetImports: new Map(), parent: g, outputs: [{ name: 't2' }] });
    then.addNode({ opType: 'Neg', name: 't2', inputs: ['t1'], outputs: ['t2'] });
    then.addNode({ opType: 'Add', name: 't1', inputs: ['late', 'x'], outputs: ['t1'] });
    // The else branch returns an outer value directly.
    const otherwise = new Graph({ name: 'else', opsetImports: new Map(), parent: g, outputs: [{ name: 'late' }] });
    ifNode(g, 'cond', 'y', then, otherwise);
    g.addNode({ opType: 'Relu', name: 'late', inputs: ['x'], outputs: ['late'] });
    sortGraphTopologically(g);
    expect(names(g.nodes)).toEqual(['late', 'y']);
    expect(names(then.nodes)).toEqual(['t1', 't2']);
  });

  it('lets a subgraph value hide an outer one of the same name', () => {
    const g = graph(['x', 'cond'], ['y'], []);
    const then = new Graph({ name: 'then', opsetImports: new Map(), parent: g, outputs: [{ name: 'v' }] });
    then.addNode({ opType: 'Neg', name: 'v', inputs: ['x'], outputs: ['v'] });
    const otherwise = new Graph({ name: 'else', opsetImports: new Map(), parent: g, outputs: [{ name: 'x' }] });
    ifNode(g, 'cond', 'y', then, otherwise);
    // An outer 'v' written after the If: the branch's own 'v' is what it reads, so the If need not move.
    g.addNode({ opType: 'Relu', name: 'v', inputs: ['y'], outputs: ['v'] });
    g.outputs.push({ name: 'v' });
    sortGraphTopologically(g);
    expect(names(g.nodes)).toEqual(['y', 'v']);
  });

  it('refuses a read of a value nothing defines, naming node and value', () => {
    const g = graph(['x'], ['y'], [['Relu', ['x'], ['a']], ['Add', ['a', 'ghost'], ['y']]]);
    const e = failure(() => sortGraphTopologically(g));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/node 'y' \(Add\) reads 'ghost', but no node, graph input or initializer defines it/);
  });

  it('refuses a subgraph read that no enclosing graph defines, naming where the subgraph is', () => {
    const g = graph(['cond'], ['y'], []);
    const then = new Graph({ name: 'then', opsetImports: new Map(), parent: g, outputs: [{ name: 't' }] });
    then.addNode({ opType: 'Neg', name: 't', inputs: ['nowhere'], outputs: ['t'] });
    ifNode(g, 'cond', 'y', then, new Graph({ name: 'else', opsetImports: new Map(), parent: g, outputs: [{ name: 'cond' }] }));
    const e = failure(() => sortGraphTopologically(g));
    expect(e.message).toMatch(/graph 'g' > y.then_branch \(graph 'then'\): node 't' \(Neg\) reads 'nowhere'.*here or in an enclosing graph/);
  });

  it('refuses a cycle, naming the nodes in it and the value', () => {
    const g = graph(['x'], ['y'], [['Relu', ['x'], ['a']], ['Add', ['a', 'c'], ['b']], ['Neg', ['b'], ['c']], ['Abs', ['c'], ['y']]]);
    const e = failure(() => sortGraphTopologically(g));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/node 'c' \(Neg\) reads 'b', which depends on that node's own output: nodes 'b' → 'c' form a cycle/);
  });

  it('refuses a node reading its own output', () => {
    const e = failure(() => sortGraphTopologically(graph(['x'], ['y'], [['Add', ['x', 'y'], ['y']]])));
    expect(e.message).toMatch(/node 'y' \(Add\) reads 'y'.*cycle/);
  });

  it('refuses a value with two producers, and a node writing over a graph input or initializer', () => {
    let e = failure(() => sortGraphTopologically(graph(['x'], ['y'], [['Relu', ['x'], ['y']], ['Neg', ['x'], ['y']]])));
    expect(e.message).toMatch(/value 'y' is written by node 'y' \(Relu\) and again by node 'y' \(Neg\)/);
    e = failure(() => sortGraphTopologically(graph(['x'], ['y'], [['Relu', ['x'], ['w']], ['Neg', ['w'], ['y']]], ['w'])));
    expect(e.message).toMatch(/node 'w' \(Relu\) writes 'w', which is already a graph input or initializer/);
  });

  it('refuses a graph output nothing defines', () => {
    const e = failure(() => sortGraphTopologically(graph(['x'], ['y', 'lost'], [['Relu', ['x'], ['y']]])));
    expect(e.message).toMatch(/graph output 'lost' is not written by any node/);
  });

  it('is linear: a 100,000-node chain listed backwards sorts quickly, without deep recursion', () => {
    const n = 100_000;
    const nodes: Array<[string, string[], string[]]> = [];
    for (let i = n - 1; i >= 0; i--) nodes.push(['Relu', [i === 0 ? 'x' : `v${i - 1}`], [`v${i}`]]);
    const g = graph(['x'], [`v${n - 1}`], nodes);
    const t0 = performance.now();
    sortGraphTopologically(g);
    const ms = performance.now() - t0;
    expect(g.nodes[0].outputs[0]).toBe('v0');
    expect(g.nodes[n - 1].outputs[0]).toBe(`v${n - 1}`);
    expect(findMalformation(g)).toBeUndefined();
    // About 0.3 s on a shared 2-core machine; generous, as a quadratic sort would take minutes.
    expect(ms).toBeLessThan(5000);
  });

  it('runs when a model is loaded, so the loaded graph is sorted', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [2]]],
      outputs: [['y', 'float32', [2]]],
      nodes: [
        { op: 'Relu', inputs: ['x16'], outputs: ['r'], name: 'relu' },
        { op: 'Cast', inputs: ['x'], outputs: ['x16'], name: 'in_cast', attributes: { to: 10 } },
        { op: 'Cast', inputs: ['r'], outputs: ['y'], name: 'out_cast', attributes: { to: 1 } },
      ],
    });
    const loaded = await loadModel(encodeModel(model));
    expect(names(loaded.graph.nodes)).toEqual(['in_cast', 'relu', 'out_cast']);
    const cyclic = buildModel({
      inputs: [['x', 'float32', [2]]],
      outputs: [['y', 'float32', [2]]],
      nodes: [
        { op: 'Add', inputs: ['x', 'y'], outputs: ['a'], name: 'add' },
        { op: 'Relu', inputs: ['a'], outputs: ['y'], name: 'relu' },
      ],
    });
    await expect(loadModel(encodeModel(cyclic))).rejects.toMatchObject({ code: 'INVALID_MODEL', message: expect.stringMatching(/cycle/) });
  });
});

describe('findMalformation', () => {
  it('accepts a well-formed graph, with subgraph reads resolved outside', () => {
    const g = graph(['x'], ['y'], [['Relu', ['x'], ['a']], ['Add', ['a', 'w'], ['y']]], ['w']);
    expect(findMalformation(g)).toBeUndefined();
    const sub = graph([], ['t'], [['Neg', ['a'], ['t']]]);
    expect(findMalformation(sub, { has: (n) => n === 'a' })).toBeUndefined();
    expect(findMalformation(sub)).toMatch(/node 't' \(Neg\) reads 'a', which nothing defines/);
  });

  it('names a read before its producer, a second producer and an unproduced output', () => {
    expect(findMalformation(graph(['x'], ['y'], [['Relu', ['a'], ['y']], ['Neg', ['x'], ['a']]]))).toMatch(/node 'y' \(Relu\) reads 'a' before the node that writes it/);
    expect(findMalformation(graph(['x'], ['y'], [['Relu', ['x'], ['y']], ['Neg', ['x'], ['y']]]))).toMatch(/writes 'y', which is already defined/);
    expect(findMalformation(graph(['x'], ['y'], [['Relu', ['x'], ['a']]]))).toMatch(/graph output 'y' is not produced/);
    // A local producer hides an outer value of the same name: reading it first is out of order.
    expect(findMalformation(graph([], ['t'], [['Relu', ['a'], ['t']], ['Neg', ['t'], ['a']]]), { has: () => true })).toMatch(/reads 'a' before/);
  });
});
