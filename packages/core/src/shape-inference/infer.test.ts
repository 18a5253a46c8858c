/** The walker: constant propagation across nodes, declared types, subgraphs, and robustness. */
import { describe, expect, it } from 'vitest';
import { Graph } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { addNode, int64, makeGraph, shapeOf, typeOf } from './build-graph.test-helper.js';
import { inferShapes } from './infer.js';

describe('constant propagation of shape arithmetic', () => {
  /** Shape → Gather → Unsqueeze → Concat(with -1 and a Slice of the shape) → Reshape, as exporters write it. */
  function flattenMiddle(xShape: (number | string)[]): Graph {
    const g = makeGraph({ opset: 13, inputs: { x: ['float32', xShape] }, initializers: { zero: int64([0], []), minus1: int64([-1]), ax0: int64([0]) } });
    addNode(g, 'Shape', ['x'], ['s']);
    addNode(g, 'Gather', ['s', 'zero'], ['n']);
    addNode(g, 'Unsqueeze', ['n', 'ax0'], ['n1']);
    addNode(g, 'Constant', [], ['st'], { value_ints: [3] });
    addNode(g, 'Constant', [], ['en'], { value_ints: [4] });
    addNode(g, 'Slice', ['s', 'st', 'en'], ['last']);
    addNode(g, 'Concat', ['n1', 'minus1', 'last'], ['target'], { axis: 0 });
    addNode(g, 'Reshape', ['x', 'target'], ['y']);
    inferShapes(g);
    return g;
  }

  it('resolves a static shape', () => {
    expect(shapeOf(flattenMiddle([2, 3, 4, 5]), 'y')).toEqual([2, 12, 5]);
  });

  it('carries a symbolic batch dim through the arithmetic', () => {
    const g = flattenMiddle(['N', 3, 4, 5]);
    expect(shapeOf(g, 'target')).toEqual([3]);
    expect(shapeOf(g, 'y')).toEqual(['N', 12, 5]);
  });

  it("gives Resize the sizes built from another tensor's shape, symbols included", () => {
    // DeepLabV3's pooled branch: resize [N, 256, 1, 1] to y's H x W with sizes = [N, 256] ++ Cast(Shape(y)[2:4]).
    const g = makeGraph({ opset: 13, inputs: { x: ['float32', ['N', 256, 1, 1]], y: ['float32', ['N', 960, 'H', 'W']] }, initializers: { i0: int64([0]), i2: int64([2]), i4: int64([4]) } });
    addNode(g, 'Shape', ['x'], ['sx']);
    addNode(g, 'Slice', ['sx', 'i0', 'i2'], ['nc']);
    addNode(g, 'Shape', ['y'], ['sy']);
    addNode(g, 'Slice', ['sy', 'i2', 'i4'], ['hw']);
    addNode(g, 'Cast', ['hw'], ['hwi'], { to: 7 });
    addNode(g, 'Concat', ['nc', 'hwi'], ['sizes'], { axis: 0 });
    addNode(g, 'Resize', ['x', '', '', 'sizes'], ['r'], { mode: 'linear' });
    inferShapes(g);
    expect(shapeOf(g, 'r')).toEqual(['N', 256, 'H', 'W']);
  });

  it('folds integer arithmetic and casts on shape values', () => {
    // target = [s[0], s[1] * s[2]] built with Mul and Cast round trips.
    const g = makeGraph({ opset: 13, inputs: { x: ['float32', [2, 3, 4]] }, initializers: { i0: int64([0]), i1: int64([1]), i2: int64([2]) } });
    addNode(g, 'Shape', ['x'], ['s']);
    addNode(g, 'Gather', ['s', 'i0'], ['d0']);
    addNode(g, 'Gather', ['s', 'i1'], ['d1']);
    addNode(g, 'Gather', ['s', 'i2'], ['d2']);
    addNode(g, 'Mul', ['d1', 'd2'], ['d12']);
    addNode(g, 'Cast', ['d12'], ['d12f'], { to: 1 });
    addNode(g, 'Cast', ['d12f'], ['d12i'], { to: 7 });
    addNode(g, 'Concat', ['d0', 'd12i'], ['target'], { axis: 0 });
    addNode(g, 'Reshape', ['x', 'target'], ['y']);
    inferShapes(g);
    expect(shapeOf(g, 'y')).toEqual([2, 12]);
  });

  it('feeds ConstantOfShape → Expand and Range from earlier nodes', () => {
    const g = makeGraph({ inputs: { x: ['float32', [3, 1]] }, initializers: { dims: int64([2, 3, 5]) } });
    addNode(g, 'ConstantOfShape', ['dims'], ['ones'], { value: new Tensor('int64', [1], [1]) });
    addNode(g, 'Shape', ['ones'], ['target']);
    addNode(g, 'Expand', ['x', 'target'], ['y']);
    addNode(g, 'Size', ['ones'], ['count']);
    addNode(g, 'Constant', [], ['start'], { value: new Tensor('int64', [0], []) });
    addNode(g, 'Constant', [], ['step'], { value: new Tensor('int64', [3], []) });
    addNode(g, 'Range', ['start', 'count', 'step'], ['r']);
    inferShapes(g);
    expect(shapeOf(g, 'y')).toEqual([2, 3, 5]);
    expect(shapeOf(g, 'r')).toEqual([10]); // ceil(30 / 3)
  });
});

describe('declared types', () => {
  it('keeps the more specific dim of declaration and inference', () => {
    const g = makeGraph({ inputs: { a: ['float32', [undefined, 8]], b: ['float32', [8, 16]] } });
    addNode(g, 'MatMul', ['a', 'b'], ['y']);
    addNode(g, 'Relu', ['y'], ['z']);
    g.valueInfo.set('y', { name: 'y', type: { kind: 'tensor', elemType: 'float32', shape: ['batch', undefined] } });
    g.outputs.push({ name: 'z', type: { kind: 'tensor', elemType: 'float32' } });
    inferShapes(g);
    expect(shapeOf(g, 'y')).toEqual(['batch', 16]);
    // The declared 'batch' flows on to the consumer.
    expect(shapeOf(g, 'z')).toEqual(['batch', 16]);
  });

  it('reports a conflicting declaration and keeps it', () => {
    const warnings: string[] = [];
    const g = makeGraph({ inputs: { a: ['float32', [2, 3]] } });
    addNode(g, 'Relu', ['a'], ['y']);
    g.valueInfo.set('y', { name: 'y', type: { kind: 'tensor', elemType: 'float32', shape: [2, 4] } });
    inferShapes(g, { onWarning: (m) => warnings.push(m) });
    expect(shapeOf(g, 'y')).toEqual([2, 4]);
    expect(warnings.join()).toMatch(/declared dim 1 = 4, inferred 3/);
  });

  it('is idempotent', () => {
    const g = makeGraph({ inputs: { a: ['float32', ['N', 3]] } });
    addNode(g, 'Transpose', ['a'], ['t']);
    inferShapes(g);
    const first = typeOf(g, 't');
    inferShapes(g);
    expect(typeOf(g, 't')).toEqual(first);
  });
});

describe('robustness', () => {
  it('leaves unknown ops unknown and keeps going', () => {
    const g = makeGraph({ inputs: { a: ['float32', [2]] } });
    g.opsetImports.set('com.example', 1);
    g.addNode({ opType: 'Mystery', domain: 'com.example', inputs: ['a'], outputs: ['m'] });
    addNode(g, 'Relu', ['m'], ['r']);
    addNode(g, 'Abs', ['a'], ['b']);
    expect(() => inferShapes(g)).not.toThrow();
    expect(typeOf(g, 'm')).toBeUndefined();
    expect(typeOf(g, 'b')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [2] });
  });

  it('survives a malformed attribute with a warning', () => {
    const warnings: string[] = [];
    const g = makeGraph({ inputs: { x: ['float32', [1, 3, 8, 8]], w: ['float32', [4, 3, 3, 3]] } });
    addNode(g, 'Conv', ['x', 'w'], ['y'], { strides: 'two' });
    inferShapes(g, { onWarning: (m) => warnings.push(m) });
    expect(warnings.join()).toMatch(/strides/);
    // The schema still gave the element type.
    expect(typeOf(g, 'y')).toMatchObject({ kind: 'tensor', elemType: 'float32' });
  });

  it('takes element types from the schema when shapes are unknown', () => {
    const g = makeGraph({ inputs: { x: ['float16', undefined] } });
    addNode(g, 'Sigmoid', ['x'], ['s']);
    addNode(g, 'Shape', ['x'], ['shp']);
    addNode(g, 'ArgMin', ['x'], ['am']);
    inferShapes(g);
    expect(typeOf(g, 's')).toEqual({ kind: 'tensor', elemType: 'float16' });
    expect(typeOf(g, 'shp')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [undefined] });
    expect(typeOf(g, 'am')).toEqual({ kind: 'tensor', elemType: 'int64' });
  });
});

describe('subgraphs', () => {
  it('infers If branches against outer values and merges their outputs', () => {
    const g = makeGraph({ inputs: { c: ['bool', []], x: ['float32', [2, 3]], w: ['float32', [3, 4]] } });
    const thenBranch = makeGraph({ parent: g });
    addNode(thenBranch, 'MatMul', ['x', 'w'], ['t_out']);
    addNode(thenBranch, 'Identity', ['x'], ['t_same']);
    thenBranch.outputs.push({ name: 't_out' }, { name: 't_same' });
    const elseBranch = makeGraph({ parent: g });
    addNode(elseBranch, 'Constant', [], ['k'], { value: new Tensor('float32', new Float32Array(10), [2, 5]) });
    addNode(elseBranch, 'Neg', ['x'], ['e_same']);
    elseBranch.outputs.push({ name: 'k' }, { name: 'e_same' });
    g.addNode({
      opType: 'If',
      inputs: ['c'],
      outputs: ['y', 'same'],
      attributes: new Map([
        ['then_branch', { type: 'graph', value: thenBranch }],
        ['else_branch', { type: 'graph', value: elseBranch }],
      ]),
    });
    inferShapes(g);
    expect(shapeOf(thenBranch, 't_out')).toEqual([2, 4]);
    expect(shapeOf(g, 'y')).toEqual([2, undefined]);
    expect(shapeOf(g, 'same')).toEqual([2, 3]);
  });

  it('seeds Loop bodies and stacks scan outputs over a constant trip count', () => {
    const g = makeGraph({ inputs: { v0: ['float32', [1]] }, initializers: { m: int64([5], []), one: new Tensor('float32', [1], [1]) } });
    const body = makeGraph({ parent: g });
    body.inputs.push({ name: 'i' }, { name: 'cond_in' }, { name: 'v_in' });
    addNode(body, 'Add', ['v_in', 'one'], ['v_out']);
    addNode(body, 'Identity', ['cond_in'], ['cond_out']);
    addNode(body, 'Cast', ['i'], ['i_f'], { to: 1 });
    addNode(body, 'Unsqueeze', ['i_f', 'ax'], ['row']);
    body.initializers.set('ax', int64([0]));
    body.outputs.push({ name: 'cond_out' }, { name: 'v_out' }, { name: 'row' });
    g.addNode({ opType: 'Loop', inputs: ['m', '', 'v0'], outputs: ['v_final', 'rows'], attributes: new Map([['body', { type: 'graph', value: body }]]) });
    inferShapes(g);
    expect(typeOf(body, 'cond_out')).toEqual({ kind: 'tensor', elemType: 'bool', shape: [] });
    expect(shapeOf(body, 'row')).toEqual([1]);
    expect(typeOf(g, 'rows')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [5, 1] });
    expect(typeOf(g, 'v_final')).toMatchObject({ kind: 'tensor', elemType: 'float32' });
  });

  it('slices Scan inputs for the body and stacks its outputs', () => {
    const g = makeGraph({ inputs: { s0: ['float32', [3]], xs: ['float32', [7, 3]] } });
    const body = makeGraph({ parent: g });
    body.inputs.push({ name: 's_in' }, { name: 'x' });
    addNode(body, 'Add', ['s_in', 'x'], ['s_out']);
    addNode(body, 'Identity', ['s_out'], ['y']);
    body.outputs.push({ name: 's_out' }, { name: 'y' });
    g.addNode({
      opType: 'Scan',
      inputs: ['s0', 'xs'],
      outputs: ['s_final', 'ys'],
      attributes: new Map([
        ['body', { type: 'graph', value: body }],
        ['num_scan_inputs', { type: 'int', value: 1 }],
      ]),
    });
    inferShapes(g);
    expect(shapeOf(body, 's_out')).toEqual([3]);
    expect(shapeOf(g, 's_final')).toEqual([3]);
    expect(shapeOf(g, 'ys')).toEqual([7, 3]);
  });
});

describe('absurd declarations', () => {
  it('does not allocate a shape for a target of absurd declared length', () => {
    const g = makeGraph({ inputs: { x: ['float32', [2, 3]], s: ['int64', [1e12]] } });
    addNode(g, 'Reshape', ['x', 's'], ['y']);
    inferShapes(g);
    expect(typeOf(g, 'y')).toEqual({ kind: 'tensor', elemType: 'float32' });
  });
});
