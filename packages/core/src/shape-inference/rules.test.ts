/** Per-op shape rules on hand-built graphs; expected sizes are worked out from the ONNX formulas. */
import { describe, expect, it } from 'vitest';
import type { Dim } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import type { DataType } from '../tensor/data-type.js';
import type { PlainAttribute } from '../testing/kernel-harness.js';
import { addNode, int64, makeGraph, shapeOf, typeOf } from './build-graph.test-helper.js';
import { inferShapes } from './infer.js';

interface OneNode {
  inputs: Record<string, [DataType, Dim[] | undefined]>;
  initializers?: Record<string, Tensor>;
  /** Input names in order; '' for an omitted optional input. Defaults to inputs' then initializers' keys. */
  order?: string[];
  attrs?: Record<string, PlainAttribute>;
  outputs?: number;
  opset?: number;
}

/** Runs inference on a single node and returns the graph. */
function one(op: string, spec: OneNode) {
  const g = makeGraph({ opset: spec.opset ?? 17, inputs: spec.inputs, initializers: spec.initializers });
  const order = spec.order ?? [...Object.keys(spec.inputs), ...Object.keys(spec.initializers ?? {})];
  const outputs = Array.from({ length: spec.outputs ?? 1 }, (_, i) => `y${i}`);
  addNode(g, op, order, outputs, spec.attrs);
  inferShapes(g);
  return g;
}

const f32 = (shape: Dim[] | undefined): [DataType, Dim[] | undefined] => ['float32', shape];

describe('elementwise', () => {
  it('broadcasts symbolic dims', () => {
    const g = one('Add', { inputs: { a: f32(['N', 1, 4]), b: f32([3, 1]) } });
    expect(typeOf(g, 'y0')).toEqual({ kind: 'tensor', elemType: 'float32', shape: ['N', 3, 4] });
    expect(shapeOf(one('Mul', { inputs: { a: f32(['N', 3]), b: f32(['N', 3]) } }), 'y0')).toEqual(['N', 3]);
    expect(shapeOf(one('Sub', { inputs: { a: f32(['N']), b: f32(['M']) } }), 'y0')).toEqual([undefined]);
  });

  it('gives comparisons a bool output and Where a three-way broadcast', () => {
    expect(typeOf(one('Less', { inputs: { a: f32([2, 3]), b: f32([3]) } }), 'y0')).toEqual({
      kind: 'tensor',
      elemType: 'bool',
      shape: [2, 3],
    });
    const g = one('Where', { inputs: { c: ['bool', [4, 1, 1]], x: f32([1, 5, 1]), y: f32([6]) } });
    expect(shapeOf(g, 'y0')).toEqual([4, 5, 6]);
  });

  it('keeps A’s shape for legacy (opset < 7) broadcasting', () => {
    const g = one('Add', { opset: 6, inputs: { a: f32([2, 3, 4, 5]), b: f32([3, 4]) }, attrs: { broadcast: 1, axis: 1 } });
    expect(shapeOf(g, 'y0')).toEqual([2, 3, 4, 5]);
  });

  it('casts to the `to` type, and CastLike to its second input’s', () => {
    expect(typeOf(one('Cast', { inputs: { x: f32(['N', 2]) }, attrs: { to: 7 } }), 'y0')).toEqual({
      kind: 'tensor',
      elemType: 'int64',
      shape: ['N', 2],
    });
    expect(typeOf(one('CastLike', { inputs: { x: f32([3]), like: ['float16', []] } }), 'y0')).toEqual({
      kind: 'tensor',
      elemType: 'float16',
      shape: [3],
    });
  });

  it('gives Dropout’s mask a bool type of the data’s shape', () => {
    const g = one('Dropout', { inputs: { x: f32([2, 'T']) }, outputs: 2 });
    expect(typeOf(g, 'y1')).toEqual({ kind: 'tensor', elemType: 'bool', shape: [2, 'T'] });
  });
});

describe('convolution and pooling', () => {
  const conv = (x: Dim[], w: number[], attrs: Record<string, PlainAttribute>) =>
    shapeOf(one('Conv', { inputs: { x: f32(x), w: f32(w) }, attrs }), 'y0');

  it('applies pads and strides', () => {
    // floor((32 + 1 + 1 - 3) / 2) + 1 = 16
    expect(conv([1, 3, 32, 32], [16, 3, 3, 3], { pads: [1, 1, 1, 1], strides: [2, 2] })).toEqual([1, 16, 16, 16]);
    // asymmetric pads: H 10 + 0 + 2 - 3 + 1 = 10, W 10 + 1 + 3 - 3 + 1 = 12
    expect(conv([1, 3, 10, 10], [4, 3, 3, 3], { pads: [0, 1, 2, 3] })).toEqual([1, 4, 10, 12]);
  });

  it('applies dilations and groups', () => {
    // effective kernel (3 - 1) * 2 + 1 = 5: 32 - 5 + 1 = 28
    expect(conv(['N', 8, 32, 32], [8, 1, 3, 3], { dilations: [2, 2], group: 8 })).toEqual(['N', 8, 28, 28]);
  });

  it('applies auto_pad SAME_UPPER and VALID', () => {
    expect(conv([1, 3, 33, 20], [5, 3, 3, 3], { auto_pad: 'SAME_UPPER', strides: [2, 2] })).toEqual([1, 5, 17, 10]);
    // VALID: ceil((33 - 3 + 1) / 2) = 16
    expect(conv([1, 3, 33, 33], [5, 3, 3, 3], { auto_pad: 'VALID', strides: [2, 2] })).toEqual([1, 5, 16, 16]);
  });

  it('keeps a symbolic spatial dim that a same-size window maps onto itself', () => {
    expect(conv([1, 3, 'H', 'W'], [4, 3, 3, 3], { pads: [1, 1, 1, 1] })).toEqual([1, 4, 'H', 'W']);
  });

  it('names the dim a strided or shrinking window derives from a symbol, one name per formula', () => {
    const s2 = conv([1, 3, 'H', 8], [4, 3, 3, 3], { strides: [2, 2] });
    expect(s2).toEqual([1, 4, 'floor((H-3)/2)+1', 3]);
    // The same geometry through another route gives the same name; another pad gives another.
    expect(conv([1, 4, 'H', 8], [2, 4, 3, 3], { strides: [2, 2] })?.[2]).toBe(s2?.[2]);
    expect(conv([1, 3, 'H', 8], [4, 3, 3, 3], { strides: [2, 2], pads: [1, 1, 1, 1] })?.[2]).not.toBe(s2?.[2]);
    expect(conv([1, 3, 'H', 'W'], [4, 3, 3, 3], {})).toEqual([1, 4, 'H-2', 'W-2']);
    expect(conv([1, 3, 'H', 'W'], [4, 3, 3, 3], { strides: [2, 2], auto_pad: 'SAME_UPPER' })).toEqual([1, 4, 'ceil(H/2)', 'ceil(W/2)']);
    const up = shapeOf(one('ConvTranspose', { inputs: { x: f32([1, 4, 'H', 5]), w: f32([4, 2, 2, 2]) }, attrs: { strides: [2, 2] } }), 'y0');
    expect(up).toEqual([1, 2, '2*H', 10]);
  });

  it('computes ConvTranspose sizes with output_padding and groups', () => {
    // 2 * (5 - 1) + 1 + 3 - 2 = 10; channels W[1] * group = 2 * 2
    const g = one('ConvTranspose', {
      inputs: { x: f32([1, 4, 5, 5]), w: f32([4, 2, 3, 3]) },
      attrs: { strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1], group: 2 },
    });
    expect(shapeOf(g, 'y0')).toEqual([1, 4, 10, 10]);
  });

  it('honours ceil_mode, dropping a window that would start in the end padding', () => {
    const pool = (x: Dim[], attrs: Record<string, PlainAttribute>) => shapeOf(one('MaxPool', { inputs: { x: f32(x) }, attrs }), 'y0');
    // floor((32 - 3) / 2) + 1 = 15; ceil gives 16
    expect(pool([1, 1, 32, 32], { kernel_shape: [3, 3], strides: [2, 2] })).toEqual([1, 1, 15, 15]);
    expect(pool([1, 1, 32, 32], { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 })).toEqual([1, 1, 16, 16]);
    // in 5, pad 1 + 1, k 2, s 2: ceil(5 / 2) + 1 = 4, but window 4 would start at 6 ≥ 5 + 1: 3
    expect(pool([1, 1, 5, 5], { kernel_shape: [2, 2], strides: [2, 2], pads: [1, 1, 1, 1], ceil_mode: 1 })).toEqual([1, 1, 3, 3]);
  });

  it('gives MaxPool indices int64 and global pooling unit spatial dims', () => {
    const g = one('MaxPool', { inputs: { x: f32([2, 3, 8, 8]) }, attrs: { kernel_shape: [2, 2], strides: [2, 2] }, outputs: 2 });
    expect(typeOf(g, 'y1')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [2, 3, 4, 4] });
    expect(shapeOf(one('GlobalAveragePool', { inputs: { x: f32(['N', 64, 7, 7]) } }), 'y0')).toEqual(['N', 64, 1, 1]);
  });
});

describe('matrix products', () => {
  it('broadcasts MatMul batch dims and handles 1-D operands', () => {
    expect(shapeOf(one('MatMul', { inputs: { a: f32([2, 1, 3, 4]), b: f32([5, 4, 6]) } }), 'y0')).toEqual([2, 5, 3, 6]);
    expect(shapeOf(one('MatMul', { inputs: { a: f32([4]), b: f32(['B', 4, 6]) } }), 'y0')).toEqual(['B', 6]);
    expect(shapeOf(one('MatMul', { inputs: { a: f32(['B', 3, 4]), b: f32([4]) } }), 'y0')).toEqual(['B', 3]);
  });

  it('transposes Gemm operands', () => {
    const g = one('Gemm', { inputs: { a: f32([4, 'M']), b: f32([10, 4]) }, attrs: { transA: 1, transB: 1 } });
    expect(shapeOf(g, 'y0')).toEqual(['M', 10]);
  });

  it('reads Einsum equations, explicit and implicit', () => {
    expect(shapeOf(one('Einsum', { inputs: { a: f32([2, 3, 4]), b: f32([2, 4, 5]) }, attrs: { equation: 'bij,bjk->bik' } }), 'y0')).toEqual([
      2, 3, 5,
    ]);
    expect(shapeOf(one('Einsum', { inputs: { a: f32([3, 4]) }, attrs: { equation: 'ij' } }), 'y0')).toEqual([3, 4]);
    expect(shapeOf(one('Einsum', { inputs: { a: f32([7, 3, 4]) }, attrs: { equation: '...ij->...ji' } }), 'y0')).toEqual([7, 4, 3]);
  });
});

describe('reshaping', () => {
  it('resolves Reshape 0 and -1 from an initializer', () => {
    const g = one('Reshape', { inputs: { x: f32([2, 3, 4]) }, initializers: { s: int64([0, -1]) } });
    expect(shapeOf(g, 'y0')).toEqual([2, 12]);
    const sym = one('Reshape', { inputs: { x: f32(['N', 3, 4]) }, initializers: { s: int64([0, -1]) } });
    expect(shapeOf(sym, 'y0')).toEqual(['N', 12]);
    const tail = one('Reshape', { inputs: { x: f32(['N', 3, 4]) }, initializers: { s: int64([-1, 3, 4]) } });
    expect(shapeOf(tail, 'y0')).toEqual(['N', 3, 4]);
  });

  it('keeps a literal 0 with allowzero', () => {
    const g = one('Reshape', { inputs: { x: f32([0, 3]) }, initializers: { s: int64([3, 0]) }, attrs: { allowzero: 1 } });
    expect(shapeOf(g, 'y0')).toEqual([3, 0]);
  });

  it('knows the rank of a Reshape whose target is computed at run time', () => {
    const g = one('Reshape', { inputs: { x: f32([2, 3, 4]), s: ['int64', [2]] } });
    expect(shapeOf(g, 'y0')).toEqual([undefined, undefined]);
  });

  it('flattens and transposes', () => {
    expect(shapeOf(one('Flatten', { inputs: { x: f32(['N', 3, 4, 5]) }, attrs: { axis: 1 } }), 'y0')).toEqual(['N', 60]);
    expect(shapeOf(one('Flatten', { inputs: { x: f32([2, 3, 4]) }, attrs: { axis: 0 } }), 'y0')).toEqual([1, 24]);
    expect(shapeOf(one('Transpose', { inputs: { x: f32(['N', 3, 4]) }, attrs: { perm: [2, 0, 1] } }), 'y0')).toEqual([4, 'N', 3]);
    expect(shapeOf(one('Transpose', { inputs: { x: f32([2, 3, 4]) } }), 'y0')).toEqual([4, 3, 2]);
  });

  it('squeezes and unsqueezes with attribute axes before opset 13', () => {
    expect(shapeOf(one('Squeeze', { opset: 11, inputs: { x: f32([1, 'N', 1, 4]) }, attrs: { axes: [0, -2] } }), 'y0')).toEqual(['N', 4]);
    expect(shapeOf(one('Unsqueeze', { opset: 11, inputs: { x: f32(['N', 4]) }, attrs: { axes: [0, -1] } }), 'y0')).toEqual([1, 'N', 4, 1]);
  });

  it('squeezes and unsqueezes with input axes from opset 13', () => {
    expect(shapeOf(one('Squeeze', { opset: 13, inputs: { x: f32([1, 3, 1]) }, initializers: { a: int64([2]) } }), 'y0')).toEqual([1, 3]);
    expect(shapeOf(one('Unsqueeze', { opset: 13, inputs: { x: f32([3, 4]) }, initializers: { a: int64([1, 3]) } }), 'y0')).toEqual([
      3, 1, 4, 1,
    ]);
    // Without axes every unit dim goes — but only when no dim could secretly be 1.
    expect(shapeOf(one('Squeeze', { opset: 13, inputs: { x: f32([1, 3, 1]) } }), 'y0')).toEqual([3]);
    expect(shapeOf(one('Squeeze', { opset: 13, inputs: { x: f32([1, 'N']) } }), 'y0')).toBeUndefined();
  });

  it('expands and tiles from constants', () => {
    expect(shapeOf(one('Expand', { inputs: { x: f32([3, 1]) }, initializers: { s: int64([2, 1, 6]) } }), 'y0')).toEqual([2, 3, 6]);
    expect(shapeOf(one('Tile', { inputs: { x: f32(['N', 3]) }, initializers: { r: int64([1, 4]) } }), 'y0')).toEqual(['N', 12]);
  });

  it('reports Shape as int64 [rank] with opset-15 start/end', () => {
    expect(typeOf(one('Shape', { inputs: { x: f32(['N', 3, 4]) } }), 'y0')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [3] });
    expect(shapeOf(one('Shape', { opset: 15, inputs: { x: f32([1, 2, 3, 4, 5]) }, attrs: { start: 1, end: -1 } }), 'y0')).toEqual([3]);
    expect(typeOf(one('Size', { inputs: { x: f32(['N', 3]) } }), 'y0')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [] });
  });
});

describe('indexing', () => {
  it('concatenates along an axis', () => {
    const g = one('Concat', { inputs: { a: f32(['N', 2]), b: f32(['N', 5]), c: f32([undefined, 1]) }, attrs: { axis: -1 } });
    expect(shapeOf(g, 'y0')).toEqual(['N', 8]);
  });

  it('splits by attribute, by input, and evenly', () => {
    const byAttr = one('Split', { opset: 11, inputs: { x: f32([10, 4]) }, attrs: { split: [3, 7] }, outputs: 2 });
    expect([shapeOf(byAttr, 'y0'), shapeOf(byAttr, 'y1')]).toEqual([[3, 4], [7, 4]]);
    const byInput = one('Split', { inputs: { x: f32([4, 10]) }, initializers: { s: int64([6, 4]) }, attrs: { axis: 1 }, outputs: 2 });
    expect([shapeOf(byInput, 'y0'), shapeOf(byInput, 'y1')]).toEqual([[4, 6], [4, 4]]);
    const even = one('Split', { inputs: { x: f32([9]) }, outputs: 3 });
    expect(shapeOf(even, 'y2')).toEqual([3]);
    // Opset 18's num_outputs: 7 in parts of ceil(7 / 3) = 3, the last one 1.
    const uneven = one('Split', { opset: 18, inputs: { x: f32([2, 7]) }, attrs: { axis: 1, num_outputs: 3 }, outputs: 3 });
    expect([0, 1, 2].map((i) => shapeOf(uneven, `y${i}`))).toEqual([[2, 3], [2, 3], [2, 1]]);
    // Without num_outputs an even split that does not divide stays unknown.
    expect(shapeOf(one('Split', { inputs: { x: f32([7]) }, outputs: 3 }), 'y0')).toEqual([undefined]);
  });

  it('slices with constant starts, ends, axes and negative steps', () => {
    const g = one('Slice', {
      inputs: { x: f32([20, 10, 5]) },
      initializers: { s: int64([0, -1]), e: int64([3, -1000]), a: int64([0, 1]), st: int64([1, -3]) },
    });
    // axis 0: [0, 3) = 3; axis 1: from 9 down to (clamped) -1 by 3: 9, 6, 3, 0 = 4
    expect(shapeOf(g, 'y0')).toEqual([3, 4, 5]);
    const opset9 = one('Slice', { opset: 9, inputs: { x: f32(['N', 10]) }, attrs: { starts: [2], ends: [100], axes: [1] } });
    expect(shapeOf(opset9, 'y0')).toEqual(['N', 8]);
    const reversed = one('Slice', { inputs: { x: f32(['N', 4]) }, initializers: { s: int64([-1]), e: int64([-(2 ** 62)]), a: int64([0]), st: int64([-1]) } });
    expect(shapeOf(reversed, 'y0')).toEqual(['N', 4]);
  });

  it('gathers', () => {
    expect(shapeOf(one('Gather', { inputs: { x: f32([5, 6, 7]), i: ['int64', [2, 3]] }, attrs: { axis: 1 } }), 'y0')).toEqual([5, 2, 3, 7]);
    expect(shapeOf(one('GatherElements', { inputs: { x: f32([5, 6]), i: ['int64', [5, 2]] } }), 'y0')).toEqual([5, 2]);
    expect(shapeOf(one('GatherND', { inputs: { x: f32([2, 3, 4]), i: ['int64', [2, 1]] }, attrs: { batch_dims: 1 } }), 'y0')).toEqual([2, 4]);
  });

  it('pads by attribute (opset < 11) and by input', () => {
    expect(shapeOf(one('Pad', { opset: 2, inputs: { x: f32([1, 3, 4]) }, attrs: { pads: [0, 1, 2, 0, 1, 2] } }), 'y0')).toEqual([1, 5, 8]);
    expect(shapeOf(one('Pad', { inputs: { x: f32(['N', 4]) }, initializers: { p: int64([0, 1, 0, 3]) } }), 'y0')).toEqual(['N', 8]);
  });
});

describe('reductions and selection', () => {
  it('reduces by attribute axes, input axes, and noop_with_empty_axes', () => {
    expect(shapeOf(one('ReduceMean', { opset: 13, inputs: { x: f32([2, 3, 4]) }, attrs: { axes: [1] } }), 'y0')).toEqual([2, 1, 4]);
    const sum = one('ReduceSum', { inputs: { x: f32([2, 3, 4]) }, initializers: { a: int64([0, -1]) }, attrs: { keepdims: 0 } });
    expect(shapeOf(sum, 'y0')).toEqual([3]);
    expect(shapeOf(one('ReduceSum', { inputs: { x: f32([2, 3]) }, attrs: { noop_with_empty_axes: 1 } }), 'y0')).toEqual([2, 3]);
    expect(shapeOf(one('ReduceMax', { opset: 13, inputs: { x: f32([2, 3]) }, attrs: { keepdims: 0 } }), 'y0')).toEqual([]);
  });

  it('ArgMax gives int64', () => {
    expect(typeOf(one('ArgMax', { inputs: { x: f32([2, 3, 4]) }, attrs: { axis: 1, keepdims: 0 } }), 'y0')).toEqual({
      kind: 'tensor',
      elemType: 'int64',
      shape: [2, 4],
    });
  });

  it('TopK takes K from a constant', () => {
    const g = one('TopK', { inputs: { x: f32(['N', 10]) }, initializers: { k: int64([3]) }, outputs: 2 });
    expect(typeOf(g, 'y1')).toEqual({ kind: 'tensor', elemType: 'int64', shape: ['N', 3] });
  });

  it('NonZero is [rank, ?]', () => {
    expect(typeOf(one('NonZero', { inputs: { x: f32([2, 3, 4]) } }), 'y0')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [3, undefined] });
  });

  it('OneHot inserts the depth axis', () => {
    const g = one('OneHot', {
      inputs: { i: ['int64', [2, 3]] },
      initializers: { d: int64([10], []), v: new Tensor('float32', [0, 1], [2]) },
      attrs: { axis: 1 },
    });
    expect(typeOf(g, 'y0')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [2, 10, 3] });
  });

  it('Resize follows constant scales or sizes', () => {
    const byScales = one('Resize', {
      inputs: { x: f32([1, 3, 5, 8]) },
      initializers: { scales: new Tensor('float32', [1, 1, 2, 0.5], [4]) },
      order: ['x', '', 'scales'],
    });
    expect(shapeOf(byScales, 'y0')).toEqual([1, 3, 10, 4]);
    const bySizes = one('Resize', { inputs: { x: f32(['N', 3, 5, 8]) }, initializers: { sizes: int64([1, 3, 7, 9]) }, order: ['x', '', '', 'sizes'] });
    expect(shapeOf(bySizes, 'y0')).toEqual([1, 3, 7, 9]);
    // Symbolic H/W: an integer factor names 2*H (as ConvTranspose k2 s2 does), a fraction floor(W*0.5).
    const symbolic = one('Resize', { inputs: { x: f32([1, 3, 'H', 'W']) }, initializers: { scales: new Tensor('float32', [1, 1, 2, 0.5], [4]) }, order: ['x', '', 'scales'] });
    expect(shapeOf(symbolic, 'y0')).toEqual([1, 3, '2*H', 'floor(W*0.5)']);
  });

  it('Resize 18 reads sizes and scales per listed axis and applies keep_aspect_ratio_policy', () => {
    const axes = one('Resize', { opset: 18, inputs: { x: f32(['N', 3, 5, 8]) }, initializers: { sizes: int64([9, 7]) }, order: ['x', '', '', 'sizes'], attrs: { axes: [3, -2] } });
    expect(shapeOf(axes, 'y0')).toEqual(['N', 3, 7, 9]);
    const scales = one('Resize', { opset: 18, inputs: { x: f32([1, 3, 'H', 8]) }, initializers: { scales: new Tensor('float32', [2, 0.5], [2]) }, order: ['x', '', 'scales'], attrs: { axes: [2, 3] } });
    expect(shapeOf(scales, 'y0')).toEqual([1, 3, undefined, 4]);
    // not_larger: scale min(7/5, 9/8) = 1.125 for both axes → round(5.625) = 6, 9.
    const keep = one('Resize', { opset: 18, inputs: { x: f32([1, 3, 5, 8]) }, initializers: { sizes: int64([7, 9]) }, order: ['x', '', '', 'sizes'], attrs: { axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' } });
    expect(shapeOf(keep, 'y0')).toEqual([1, 3, 6, 9]);
    const unknownDim = one('Resize', { opset: 18, inputs: { x: f32([1, 3, 'H', 8]) }, initializers: { sizes: int64([7, 9]) }, order: ['x', '', '', 'sizes'], attrs: { axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' } });
    expect(shapeOf(unknownDim, 'y0')).toEqual([1, 3, undefined, undefined]);
  });
});

describe('normalisation, generators, recurrent', () => {
  it('LayerNormalization keeps leading dims in its statistics', () => {
    const g = one('LayerNormalization', { inputs: { x: f32(['B', 'T', 64]), s: f32([64]) }, attrs: { axis: -1 }, outputs: 3 });
    expect(shapeOf(g, 'y0')).toEqual(['B', 'T', 64]);
    expect(typeOf(g, 'y1')).toEqual({ kind: 'tensor', elemType: 'float32', shape: ['B', 'T', 1] });
  });

  it('BatchNormalization training outputs are per channel', () => {
    const g = one('BatchNormalization', {
      inputs: { x: f32([2, 5, 4, 4]), s: f32([5]), b: f32([5]), m: f32([5]), v: f32([5]) },
      attrs: { training_mode: 1 },
      outputs: 3,
    });
    expect(shapeOf(g, 'y2')).toEqual([5]);
  });

  it('Range and ConstantOfShape resolve from constants', () => {
    const r = one('Range', { initializers: { a: int64([2], []), b: int64([11], []), d: int64([3], []) }, inputs: {} });
    expect(typeOf(r, 'y0')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [3] });
    const c = one('ConstantOfShape', {
      inputs: {},
      initializers: { s: int64([2, 3]) },
      attrs: { value: new Tensor('int32', [7], [1]) },
    });
    expect(typeOf(c, 'y0')).toEqual({ kind: 'tensor', elemType: 'int32', shape: [2, 3] });
  });

  it('Constant reads value_* attributes', () => {
    expect(typeOf(one('Constant', { inputs: {}, attrs: { value_ints: [1, 2, 3] } }), 'y0')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [3] });
    expect(typeOf(one('Constant', { inputs: {}, attrs: { value: new Tensor('float32', [1, 2], [2, 1]) } }), 'y0')).toEqual({
      kind: 'tensor',
      elemType: 'float32',
      shape: [2, 1],
    });
  });

  it('LSTM outputs follow direction, layout and hidden size', () => {
    const g = one('LSTM', {
      inputs: { x: f32(['T', 'B', 10]), w: f32([2, 80, 10]), r: f32([2, 80, 20]) },
      attrs: { hidden_size: 20, direction: 'bidirectional' },
      outputs: 3,
    });
    expect(shapeOf(g, 'y0')).toEqual(['T', 2, 'B', 20]);
    expect(shapeOf(g, 'y2')).toEqual([2, 'B', 20]);
    const batchFirst = one('GRU', { inputs: { x: f32([4, 7, 10]), w: f32([1, 60, 10]), r: f32([1, 60, 20]) }, attrs: { layout: 1 }, outputs: 2 });
    expect(shapeOf(batchFirst, 'y0')).toEqual([4, 7, 1, 20]);
    expect(shapeOf(batchFirst, 'y1')).toEqual([4, 1, 20]);
  });
});
