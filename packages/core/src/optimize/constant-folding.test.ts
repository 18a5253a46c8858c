import { describe, expect, it } from 'vitest';
import { Graph } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { f32, i64, input, newGraph, node, tinyEvaluator, values } from './fixtures.test.util.js';
import { optimizeGraph } from './optimize-graph.js';

describe('constant folding', () => {
  it('folds an initializer chain ending in Shape and keeps the graph-input part', async () => {
    const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
    const b = f32([10, 20, 30, 40, 50, 60], [2, 3]);
    const g = newGraph({ inputs: [input('x', 'int64', [2])], outputs: ['y', 'z'], initializers: { a, b } });
    g.inputs.push(input('w', 'float32', [2, 3]));
    node(g, 'Add', ['a', 'b'], ['c']);
    node(g, 'Mul', ['c', 'a'], ['d']);
    node(g, 'Shape', ['d'], ['s']);
    node(g, 'Mul', ['x', 's'], ['y']);
    node(g, 'Add', ['w', 'd'], ['z']);
    const evaluate = tinyEvaluator();

    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });

    expect(g.nodes.map((n) => n.name)).toEqual(['y', 'z']);
    expect(values(g.initializers.get('s'))).toEqual([2, 3]);
    expect(g.initializers.get('s')!.type).toBe('int64');
    // d = (a + b) * a, computed here independently of the evaluator.
    const expected = [1, 2, 3, 4, 5, 6].map((v, i) => (v + [10, 20, 30, 40, 50, 60][i]) * v);
    expect(values(g.initializers.get('d'))).toEqual(expected);
    expect([...g.initializers.keys()].sort()).toEqual(['d', 's']);

    const folding = report.passes.find((p) => p.name === 'constant-folding')!;
    // d's shape is static, so shape folding (which runs first) takes s before constant folding evaluates c and d.
    expect(folding.nodes).toEqual(['s', 'c', 'd']);
    expect(folding.count).toBe(3);
    const dce = report.passes.find((p) => p.name === 'dead-code-elimination')!;
    expect(dce.initializersRemoved.sort()).toEqual(['a', 'b', 'c']);
    expect(report.nodesBefore).toBe(5);
    expect(report.nodesAfter).toBe(2);
  });

  it('stops at graph inputs and never evaluates nodes that depend on them', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', ['n'])], outputs: ['f'], initializers: { a: f32([1]), b: f32([2]) } });
    node(g, 'Add', ['x', 'a'], ['e']);
    node(g, 'Mul', ['e', 'b'], ['f']);
    const evaluate = tinyEvaluator();
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });
    expect(evaluate.calls).toEqual([]);
    expect(g.nodes.map((n) => n.opType)).toEqual(['Add', 'Mul']);
    expect(report.passes.find((p) => p.name === 'constant-folding')!.count).toBe(0);
  });

  it('treats an initializer that is also a graph input as overridable, not constant', async () => {
    const g = newGraph({ inputs: [input('a', 'float32', [1])], outputs: ['y'], initializers: { a: f32([1]), b: f32([2]) } });
    node(g, 'Add', ['a', 'b'], ['c']);
    node(g, 'Mul', ['c', 'c'], ['y']);
    const evaluate = tinyEvaluator();
    await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });
    expect(evaluate.calls).toEqual([]);
    expect(g.nodes).toHaveLength(2);
    expect(g.initializers.has('a')).toBe(true);
  });

  it('turns Constant nodes into initializers but keeps a Constant that produces a graph output', async () => {
    const g = newGraph({ inputs: [input('x', 'int64', [3])], outputs: ['y', 'k'] });
    node(g, 'Constant', [], ['c'], { attributes: { value_ints: { type: 'ints', value: [4, 5, 6] } } });
    node(g, 'Add', ['x', 'c'], ['y']);
    node(g, 'Constant', [], ['k'], { attributes: { value_float: { type: 'float', value: 1.5 } } });
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });
    const c = g.initializers.get('c')!;
    expect(c.type).toBe('int64');
    expect(c.dims).toEqual([3]);
    expect(values(c)).toEqual([4, 5, 6]);
    expect(g.nodes.map((n) => n.name)).toEqual(['y', 'k']);
    expect(report.passes.find((p) => p.name === 'constant-folding')!.nodes).toEqual(['c']);
  });

  it('skips outputs larger than maxFoldBytes and says why', async () => {
    const big = f32(new Array(64).fill(1), [64]);
    const g = newGraph({ inputs: [input('x', 'float32', [64])], outputs: ['y'], initializers: { big } });
    node(g, 'Add', ['big', 'big'], ['twice']);
    node(g, 'Mul', ['x', 'twice'], ['y']);
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator(), maxFoldBytes: 100 });
    expect(g.nodes.map((n) => n.name)).toEqual(['twice', 'y']);
    const skipped = report.passes.find((p) => p.name === 'constant-folding')!.skipped;
    expect(skipped).toEqual([{ node: 'twice', reason: expect.stringContaining('maxFoldBytes') }]);
  });

  it('keeps DequantizeLinear of constant int8 weights for the quantized fusions, and says why', async () => {
    const w = new Tensor('int8', Int8Array.of(-3, 5), [2]);
    const g = newGraph({ inputs: [input('x', 'float32', [2])], outputs: ['y'], initializers: { w, s: f32([0.5], []) } });
    node(g, 'DequantizeLinear', ['w', 's'], ['wf']);
    node(g, 'Mul', ['x', 'wf'], ['y']);
    const evaluate = tinyEvaluator();
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });
    expect(evaluate.calls).toEqual([]);
    expect(g.nodes.map((n) => n.name)).toEqual(['wf', 'y']);
    expect(report.passes.find((p) => p.name === 'constant-folding')!.skipped).toEqual([
      { node: 'wf', reason: expect.stringContaining('quantized fusions') },
    ]);
  });

  it('refuses a huge ConstantOfShape before evaluating it', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', [1])], outputs: ['y'], initializers: { shape: i64([100000, 100000]) } });
    node(g, 'ConstantOfShape', ['shape'], ['huge']);
    node(g, 'Mul', ['x', 'huge'], ['y']);
    const evaluate = tinyEvaluator();
    await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });
    expect(evaluate.calls).toEqual([]);
    expect(g.nodes).toHaveLength(2);
  });

  it('leaves a node whose evaluation fails, and does not fold random ops or custom domains', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', [2])], outputs: ['y', 'r', 'q'], initializers: { a: f32([1, 2]) } });
    node(g, 'Sqrt', ['a'], ['s']);
    node(g, 'Mul', ['x', 's'], ['y']);
    node(g, 'RandomUniformLike', ['a'], ['r']);
    node(g, 'Add', ['a', 'a'], ['q'], { domain: 'com.example' });
    const evaluate = tinyEvaluator();
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });
    expect(evaluate.calls).toEqual(['s']);
    expect(g.nodes.map((n) => n.name)).toEqual(['s', 'y', 'r', 'q']);
    expect(report.passes.find((p) => p.name === 'constant-folding')!.skipped).toEqual([
      { node: 's', reason: expect.stringContaining('no kernel for Sqrt') },
    ]);
  });

  it('rejects non-tensor results from the evaluator', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', [1])], outputs: ['y'], initializers: { a: f32([1]) } });
    node(g, 'Add', ['a', 'a'], ['b']);
    node(g, 'Mul', ['x', 'b'], ['y']);
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: () => [[f32([1])]] as unknown as Tensor[] });
    expect(g.nodes).toHaveLength(2);
    expect(report.passes[0].skipped[0].reason).toContain('not a tensor');
  });

  it('folds inside a subgraph using an outer initializer, keeping the subgraph output', async () => {
    const g = newGraph({ inputs: [input('cond', 'float32', [])], outputs: ['out'], initializers: { a: f32([3]) } });
    const body = new Graph({ name: 'then', outputs: [{ name: 't_out' }], opsetImports: new Map(), parent: g });
    node(body, 'Add', ['a', 'a'], ['six']);
    node(body, 'Mul', ['six', 'a'], ['t_out']);
    const other = new Graph({ name: 'else', outputs: [{ name: 'e_out' }], opsetImports: new Map(), parent: g });
    node(other, 'Identity', ['a'], ['e_out']);
    node(g, 'If', ['cond'], ['out'], {
      name: 'if',
      attributes: { then_branch: { type: 'graph', value: body }, else_branch: { type: 'graph', value: other } },
    });
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });
    expect(values(body.initializers.get('six'))).toEqual([6]);
    expect(body.nodes.map((n) => n.name)).toEqual(['t_out']);
    expect(g.initializers.has('a')).toBe(true);
    expect(report.passes[0].nodes).toEqual(['if.then_branch/six']);
  });
});
