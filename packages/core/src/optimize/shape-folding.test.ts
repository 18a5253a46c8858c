import { describe, expect, it } from 'vitest';
import { f32, i64, input, newGraph, node, tinyEvaluator, values } from './fixtures.test.util.js';
import { optimizeGraph } from './optimize-graph.js';

describe('shape folding', () => {
  it('turns the static elements of a partly dynamic shape into constants and keeps the dynamic ones', async () => {
    // x is [n, 3, 4]: Gather(Shape(x), 1) is 3 whatever n is; Gather(Shape(x), 0) is n.
    const g = newGraph({ inputs: [input('x', 'float32', ['n', 3, 4])], outputs: ['y', 'z'], initializers: { i0: i64([0], []), i1: i64([1], []), two: i64([2], []) } });
    node(g, 'Shape', ['x'], ['s']);
    node(g, 'Gather', ['s', 'i1'], ['c'], { attributes: { axis: { type: 'int', value: 0 } } });
    node(g, 'Mul', ['c', 'two'], ['y']);
    node(g, 'Gather', ['s', 'i0'], ['n']);
    node(g, 'Mul', ['n', 'two'], ['z']);
    const evaluate = tinyEvaluator();

    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });

    // c became the constant 3; the Mul after it is graph output y, so it stays a node (outputs stay produced by nodes).
    expect(values(g.initializers.get('c'))).toEqual([3]);
    expect(g.initializers.get('c')!.type).toBe('int64');
    expect(g.initializers.get('c')!.dims).toEqual([]);
    expect(g.nodes.map((n) => n.name)).toEqual(['s', 'y', 'n', 'z']);
    expect(report.passes.find((p) => p.name === 'constant-folding')!.nodes).toContain('c');
  });

  it('folds a Shape chain into constants that constant folding then evaluates with the kernels', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', ['n', 3, 4])], outputs: ['y'], initializers: { i2: i64([2]), one: f32([1]) } });
    g.inputs.push(input('w', 'float32', [4]));
    node(g, 'Shape', ['x'], ['s']);
    node(g, 'Gather', ['s', 'i2'], ['k']);
    node(g, 'Add', ['k', 'k'], ['k2']);
    node(g, 'Shape', ['w'], ['sw']);
    node(g, 'Add', ['sw', 'k2'], ['y']);
    const evaluate = tinyEvaluator();

    await optimizeGraph(g, { level: 'basic', evaluateNode: evaluate });

    // k = [4] by shape folding, sw = [4] too; k2 = k + k by the evaluator; only the output node is left.
    expect(values(g.initializers.get('k2'))).toEqual([8]);
    expect(evaluate.calls).toEqual(['k2']);
    expect(g.nodes.map((n) => n.name)).toEqual(['y']);
  });

  it('leaves values read from an initializer the caller may override', async () => {
    // d is a graph input with a default: Gather(d, 0) depends on what the caller feeds.
    const g = newGraph({ inputs: [input('d', 'int64', [2])], outputs: ['y'], initializers: { d: i64([5, 6]), i0: i64([0], []), two: i64([2], []) } });
    node(g, 'Gather', ['d', 'i0'], ['first']);
    node(g, 'Mul', ['first', 'two'], ['y']);

    await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });

    expect(g.nodes.map((n) => n.name)).toEqual(['first', 'y']);
    expect(g.initializers.has('first')).toBe(false);
    // The default is still there for runs that do not feed d.
    expect(values(g.initializers.get('d'))).toEqual([5, 6]);
  });

  it('keeps graph outputs produced by nodes and does nothing at level disabled', async () => {
    const build = () => {
      const g = newGraph({ inputs: [input('x', 'float32', [2, 3])], outputs: ['s'] });
      node(g, 'Shape', ['x'], ['s']);
      return g;
    };
    const g = build();
    await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });
    expect(g.nodes.map((n) => n.opType)).toEqual(['Shape']);
    const d = build();
    d.outputs = [{ name: 't' }];
    node(d, 'Identity', ['s'], ['t']);
    await optimizeGraph(d, { level: 'disabled', evaluateNode: tinyEvaluator() });
    expect(d.nodes.map((n) => n.opType)).toEqual(['Shape', 'Identity']);
  });
});
