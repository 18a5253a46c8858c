/**
 * The chains execution providers fuse, written the way exporters write them, with random variations
 * that must and must not fuse: Conv → BatchNormalization → Add → activation, MatMul → Add(bias), the
 * op-by-op LayerNorm and GELU, attention's MatMul → scale → mask → Softmax → MatMul, a residual Add
 * feeding LayerNormalization, conv chains that stay channel-blocked, and an explicit Pad before a Conv
 * or pool (TF/Paddle "SAME" convolutions, torch's avg_pool2d).
 */
import { Tensor } from '../../tensor/tensor.js';
import { broadcastShapes } from './elementwise-ops.js';
import { elementsOf, type GraphBuilder, type RandomValue } from './graph-builder.js';
import { batchNorm, conv, layerNorm, matMulShape, pool, scalarConstant, weights } from './nn-ops.js';

const f32 = (shape: readonly number[], mag: number) => ({ dtype: 'float32' as const, shape, mag });

/** Sometimes a second reader of `v` (a graph output candidate): a fusion must then keep `v`. */
function maybeAlsoRead(b: GraphBuilder, v: RandomValue, p = 0.15): void {
  if (b.rng.chance(p)) b.op(b.rng.pick(['Identity', 'Relu', 'Neg']), [v], f32(v.shape, v.mag));
}

/** Add with the operands in either order. */
function add(b: GraphBuilder, x: RandomValue, y: RandomValue, mag = x.mag + y.mag): RandomValue {
  const shape = broadcastShapes(x.shape, y.shape)!;
  return b.op('Add', b.rng.chance(0.5) ? [x, y] : [y, x], f32(shape, mag));
}

function mul(b: GraphBuilder, x: RandomValue, y: RandomValue, mag = x.mag * y.mag): RandomValue {
  const shape = broadcastShapes(x.shape, y.shape)!;
  return b.op('Mul', b.rng.chance(0.5) ? [x, y] : [y, x], f32(shape, mag));
}

/** Conv → [BatchNormalization] → [Add(residual)] → [Relu | Clip | LeakyRelu]. */
export function convBlock(b: GraphBuilder): RandomValue | undefined {
  const r = b.rng;
  let y = conv(b);
  if (!y) return undefined;
  if (r.chance(0.6)) {
    maybeAlsoRead(b, y);
    y = batchNorm(b, y)!;
  }
  if (r.chance(0.5)) {
    maybeAlsoRead(b, y);
    const same = b.pickFloat((v) => v !== y && v.shape.length === y!.shape.length && v.shape.every((d, i) => d === y!.shape[i]));
    // A residual of the same shape fuses; a broadcasting one must not.
    const z = same && r.chance(0.7) ? same : r.chance(0.6) ? b.constant(b.floats(y.shape, -1, 1)) : b.constant(b.floats([y.shape[1], ...Array(y.shape.length - 2).fill(1)], -1, 1));
    y = add(b, y, z);
  }
  if (r.chance(0.7)) {
    maybeAlsoRead(b, y);
    const act = r.weighted([['Relu', 4], ['Clip', 2], ['LeakyRelu', 1], ['Sigmoid', 1]] as const);
    if (act === 'Clip') y = clipOf(b, y);
    else y = b.op(act, [y], f32(y.shape, act === 'Sigmoid' ? 1 : y.mag), act === 'LeakyRelu' ? { alpha: { float: 0.1 } } : {});
  }
  return y;
}

/** Clip of `x` with constant bounds (ReLU6 mostly), or bounds computed in the graph (not fusable). */
function clipOf(b: GraphBuilder, x: RandomValue): RandomValue {
  const r = b.rng;
  if (r.chance(0.15)) {
    const lo = b.op('ReduceMin', [x], f32([], x.mag), { keepdims: 0 });
    return b.op('Clip', [x, lo, scalarConstant(b, 6, true)], f32(x.shape, x.mag));
  }
  const [lo, hi] = r.pick([[0, 6], [-1, 1], [0, 1]]);
  const bounds = [scalarConstant(b, lo, true)];
  if (r.chance(0.8)) bounds.push(scalarConstant(b, hi, true));
  return b.op('Clip', [x, ...bounds], f32(x.shape, Math.min(x.mag, 6)));
}

/** MatMul by constant weights → Add(bias): a bias row fuses; other bias shapes must not. */
export function matMulBias(b: GraphBuilder): RandomValue | undefined {
  const found = b.pickFloat((v) => v.shape.length >= 2 && v.shape.length <= 4 && v.shape[v.shape.length - 1] <= 64);
  if (!found) return undefined;
  const x = b.tame(found);
  const r = b.rng;
  const k = x.shape[x.shape.length - 1];
  const n = r.int(1, 16);
  const w = weights(b, [k, n], k);
  const yShape = matMulShape(x.shape, w.shape)!;
  const y = b.op('MatMul', [x, w], f32(yShape, x.mag * 2));
  maybeAlsoRead(b, y, 0.1);
  const rank = yShape.length;
  const form = r.weighted([['row', 5], ['row-nd', 2], ['wide', 1], ['column', 1], ['value', 1]] as const);
  let bias: RandomValue;
  if (form === 'row') bias = b.constant(b.floats([n], -1, 1), 'bias');
  else if (form === 'row-nd') bias = b.constant(b.floats([...Array(r.int(1, rank - 1)).fill(1), n], -1, 1), 'bias');
  else if (form === 'wide') bias = b.constant(b.floats([...Array(rank).fill(1), n].slice(-(rank + 1)), -1, 1), 'bias');
  else if (form === 'column') bias = b.constant(b.floats([yShape[rank - 2], 1], -1, 1), 'bias');
  else bias = b.op('Sigmoid', [b.constant(b.floats([n], -1, 1))], f32([n], 1));
  return add(b, y, bias);
}

/**
 * LayerNorm spelled out: ReduceMean → Sub → Pow 2 | Mul(d, d) → ReduceMean → Add ε → Sqrt → Div →
 * [Mul γ] → [Add β], over the last one or two axes.
 */
export function layerNormDecomposed(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 2 && v.shape[v.shape.length - 1] >= 2);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const k = r.chance(0.8) ? 1 : 2;
  const axes = Array.from({ length: k }, (_, i) => rank - k + i).map((a) => (r.chance(0.5) ? a - rank : a));
  const reduced = x.shape.map((d, i) => (i >= rank - k ? 1 : d));
  const normalized = x.shape.slice(rank - k);
  const mean = (v: RandomValue, mag: number) => b.reduce('ReduceMean', v, axes, f32(reduced, mag), r.chance(0.5) ? {} : { keepdims: 1 });
  const m = mean(x, x.mag);
  const d = b.op('Sub', [x, m], f32(x.shape, 2 * x.mag));
  maybeAlsoRead(b, d, 0.08);
  const sq = r.chance(0.5) ? b.op('Pow', [d, scalarConstant(b, 2)], f32(x.shape, 4 * x.mag * x.mag)) : b.op('Mul', [d, d], f32(x.shape, 4 * x.mag * x.mag));
  const v = mean(sq, sq.mag);
  const ve = add(b, v, scalarConstant(b, r.pick([1e-5, 1e-6, 1e-12])), v.mag);
  const s = b.op('Sqrt', [ve], f32(reduced, 2 * x.mag));
  let y = b.op('Div', [d, s], f32(x.shape, Math.sqrt(elementsOf(normalized)) + 1));
  if (r.chance(0.8)) {
    // γ of the normalized shape fuses; a full-rank one broadcasts further and must not.
    const gShape = r.weighted([[normalized, 8], [[...Array(rank - k).fill(1), ...normalized], 1], [normalized.slice(-1), 1], [[1], 1]] as const);
    y = mul(b, y, b.constant(b.floats(gShape, 0.5, 1.5), 'gamma'), y.mag * 1.5);
    if (r.chance(0.8)) y = add(b, y, b.constant(b.floats(normalized, -0.5, 0.5), 'beta'));
  }
  return y;
}

/** GELU's erf form in the three arrangements exporters write. */
export function geluDecomposed(b: GraphBuilder): RandomValue | undefined {
  const found = b.pickFloat();
  if (!found) return undefined;
  const x = b.tame(found);
  const r = b.rng;
  const shape = x.shape;
  const scaled = r.chance(0.5) ? b.op('Div', [x, scalarConstant(b, Math.SQRT2)], f32(shape, x.mag)) : mul(b, x, scalarConstant(b, Math.SQRT1_2), x.mag);
  const e = b.op('Erf', [scaled], f32(shape, 1));
  const onePlus = add(b, e, scalarConstant(b, 1), 2);
  const half = () => scalarConstant(b, 0.5);
  const form = r.int(0, 2);
  if (form === 0) return mul(b, mul(b, x, onePlus, 2 * x.mag), half(), x.mag);
  if (form === 1) return mul(b, mul(b, x, half(), x.mag), onePlus, x.mag);
  return mul(b, mul(b, onePlus, half(), 1), x, x.mag);
}

/**
 * Self-attention over [B, S, H·D]: projections with bias, Reshape and Transpose to heads,
 * Q·Kᵀ scaled, masked, Softmax, ·V, back to [B, S, H·D], output projection, residual, LayerNorm.
 */
export function attention(b: GraphBuilder): RandomValue | undefined {
  const r = b.rng;
  const heads = r.pick([1, 2, 4]);
  const found = b.pickFloat((v) => v.shape.length === 3 && v.shape[2] % heads === 0 && v.shape[2] <= 32);
  const x = found ? b.tame(found) : b.input('float32', [r.int(1, 2), r.int(1, 6), heads * r.pick([2, 4])]);
  const [batch, seq, width] = x.shape;
  const dh = width / heads;
  const project = (out: number) => {
    const y = b.op('MatMul', [x, weights(b, [width, out], width)], f32([batch, seq, out], x.mag));
    return add(b, y, b.constant(b.floats([out], -0.2, 0.2), 'bias'), y.mag + 0.2);
  };
  const toHeads = (v: RandomValue, perm: number[]) => {
    const spec = b.constant(b.int64s([r.chance(0.5) ? 0 : batch, r.chance(0.3) ? -1 : seq, heads, dh]), 'shape');
    const split = b.op('Reshape', [v, spec], f32([batch, seq, heads, dh], v.mag));
    return b.op('Transpose', [split], f32(perm.map((p) => split.shape[p]), v.mag), { perm });
  };
  const q = toHeads(project(width), [0, 2, 1, 3]);
  const k = toHeads(project(width), [0, 2, 3, 1]);
  const v = toHeads(project(width), [0, 2, 1, 3]);
  let scores = b.op('MatMul', [q, k], f32([batch, heads, seq, seq], 36 * Math.sqrt(dh)));
  scores = r.chance(0.5) ? b.op('Div', [scores, scalarConstant(b, Math.sqrt(dh))], f32(scores.shape, 36)) : mul(b, scores, scalarConstant(b, 1 / Math.sqrt(dh)), 36);
  if (r.chance(0.7)) {
    const maskShape = r.pick([[batch, 1, 1, seq], [1, 1, seq, seq], [seq]]);
    const mask = b.constant(new Tensor('float32', Float32Array.from({ length: elementsOf(maskShape) }, () => (r.chance(0.2) ? -10000 : 0)), maskShape), 'mask');
    scores = b.op('Add', [scores, mask], f32(scores.shape, 10036));
  }
  const probs = b.op('Softmax', [scores], f32(scores.shape, 1), r.chance(0.5) ? { axis: -1 } : { axis: 3 });
  const context = b.op('MatMul', [probs, v], f32([batch, heads, seq, dh], 6));
  const merged = b.op('Transpose', [context], f32([batch, seq, heads, dh], 6), { perm: [0, 2, 1, 3] });
  const flat = b.op('Reshape', [merged, b.constant(b.int64s([0, 0, width]), 'shape')], f32([batch, seq, width], 6));
  const out = b.op('MatMul', [flat, weights(b, [width, width], width)], f32([batch, seq, width], 12));
  return r.chance(0.6) ? residualLayerNorm(b, out, x) : out;
}

/** LayerNormalization of a residual sum (SkipLayerNormalization), the sum sometimes read on. */
function residualLayerNorm(b: GraphBuilder, a: RandomValue, c: RandomValue): RandomValue {
  const sum = add(b, a, c);
  maybeAlsoRead(b, sum, 0.3);
  return layerNorm(b, sum) ?? sum;
}

export function skipLayerNorm(b: GraphBuilder): RandomValue | undefined {
  const a = b.pickFloat((v) => v.shape.length >= 2 && v.shape[v.shape.length - 1] >= 2);
  if (!a) return undefined;
  const same = b.pickFloat((v) => v !== a && v.shape.length === a.shape.length && v.shape.every((d, i) => d === a.shape[i]));
  return residualLayerNorm(b, a, same ?? b.constant(b.floats(a.shape, -1, 1)));
}

/**
 * Conv chains a channel-blocked layout keeps blocked: a 1x1 conv, an activation, a depthwise 3x3;
 * pooling between convs; convs side by side concatenated along channels.
 */
export function convChain(b: GraphBuilder): RandomValue | undefined {
  const found = b.pickFloat((v) => v.shape.length === 4 && v.shape[1] <= 16 && elementsOf(v.shape) <= 8192);
  const r = b.rng;
  const x = found ?? b.input('float32', [r.int(1, 2), r.pick([3, 4, 8, 16]), r.int(4, 9), r.int(4, 9)]);
  const [n, c, h, w] = x.shape;
  const expandTo = r.pick([8, 16, 24]);
  let y = b.op('Conv', [b.tame(x), weights(b, [expandTo, c, 1, 1], c), b.constant(b.floats([expandTo], -0.2, 0.2), 'bias')], f32([n, expandTo, h, w], 3));
  y = r.chance(0.5) ? b.op('Relu', [y], f32(y.shape, 3)) : clipOf(b, y);
  const stride = r.chance(0.3) ? 2 : 1;
  const ho = Math.floor((h + 2 - 3) / stride) + 1;
  const wo = Math.floor((w + 2 - 3) / stride) + 1;
  const dwAttrs = { group: expandTo, pads: [1, 1, 1, 1], ...(stride === 2 ? { strides: [2, 2] } : {}), kernel_shape: [3, 3] };
  y = b.op('Conv', [b.tame(y), weights(b, [expandTo, 1, 3, 3], 9), b.constant(b.floats([expandTo], -0.2, 0.2), 'bias')], f32([n, expandTo, ho, wo], 3), dwAttrs);
  if (r.chance(0.5)) y = b.op('Relu', [y], f32(y.shape, 3));
  if (r.chance(0.6)) {
    // Two convs of one input, concatenated along channels (whole channel blocks of 8 or 16 mostly).
    const m1 = r.pick([16, 32, 16, 8, 4]);
    const m2 = r.pick([16, 32, 16, 8, 4]);
    const side = (m: number) => b.op('Conv', [b.tame(y!), weights(b, [m, expandTo, 1, 1], expandTo)], f32([n, m, ho, wo], 3));
    y = b.op('Concat', [side(m1), side(m2)], f32([n, m1 + m2, ho, wo], 3), { axis: 1 });
    // Read by another conv, as SqueezeNet's fire modules are: the concatenation can stay blocked.
    if (r.chance(0.7)) y = b.op('Conv', [b.tame(y), weights(b, [16, m1 + m2, 1, 1], m1 + m2)], f32([n, 16, ho, wo], 3));
  }
  if (r.chance(0.35)) y = cspSplit(b, y);
  if (r.chance(0.3)) y = pool(b, y) ?? y;
  return y;
}

/**
 * A CSP / C2f-style split of a conv output's channels (by two Slices or one Split; on whole 8- or
 * 16-channel blocks mostly, sometimes not), the second part through a 3x3 conv, all joined by a Concat.
 */
function cspSplit(b: GraphBuilder, y: RandomValue): RandomValue {
  const r = b.rng;
  const [n, c, h, w] = y.shape;
  const choices = [8, 16, c / 2, 4, 12].filter((v) => Number.isInteger(v) && v > 0 && v < c);
  if (!choices.length) return y;
  const at = r.pick(choices);
  const x = b.tame(y);
  let first: RandomValue;
  let second: RandomValue;
  if (r.chance(0.5)) {
    const axes = b.constant(b.int64s([r.chance(0.3) ? -3 : 1]), 'axes');
    first = b.op('Slice', [x, b.constant(b.int64s([0]), 'starts'), b.constant(b.int64s([r.chance(0.3) ? at - c : at]), 'ends'), axes], f32([n, at, h, w], x.mag));
    second = b.op('Slice', [x, b.constant(b.int64s([at]), 'starts'), b.constant(b.int64s([r.chance(0.5) ? 2 ** 62 : c]), 'ends'), axes], f32([n, c - at, h, w], x.mag));
  } else {
    [first, second] = b.node('Split', [x, b.constant(b.int64s([at, c - at]), 'split')], [f32([n, at, h, w], x.mag), f32([n, c - at, h, w], x.mag)], { axis: 1 });
  }
  const conv3 = b.op('Conv', [second, weights(b, [c - at, c - at, 3, 3], (c - at) * 9)], f32([n, c - at, h, w], 3), { pads: [1, 1, 1, 1] });
  return b.op('Concat', [first, second, b.op('Relu', [conv3], f32(conv3.shape, 3))], f32([n, 2 * c - at, h, w], 3), { axis: 1 });
}


/**
 * Pad → Conv or pool, as exporters write explicit padding: zeros on the spatial axes mostly (a Conv or an
 * AveragePool absorbs those), sometimes padding the channels, reflecting, or padding with another value
 * (none of which may be absorbed).
 */
export function paddedWindow(b: GraphBuilder): RandomValue | undefined {
  const r = b.rng;
  const found = b.pickFloat((v) => v.shape.length === 4 && v.shape[1] <= 16 && elementsOf(v.shape) <= 8192);
  if (!found) return undefined;
  const x = b.tame(found);
  const begin = x.shape.map((_, i) => (i < 2 ? 0 : r.int(0, 2)));
  const end = x.shape.map((_, i) => (i < 2 ? 0 : r.int(0, 2)));
  if (r.chance(0.1)) begin[1] = 1; // channels: a conv's weights would no longer match, so only a pool reads it
  const variant = r.weighted([['zeros', 6], ['zero-value', 2], ['value', 1], ['reflect', 1]] as const);
  const reflect = variant === 'reflect' && x.shape.every((d, i) => i < 2 || (begin[i] < d && end[i] < d));
  const inputs = [x, b.constant(b.int64s([...begin, ...end]), 'pads')];
  if (variant === 'zero-value' || variant === 'value') inputs.push(scalarConstant(b, variant === 'value' ? 0.5 : 0, true));
  const shape = x.shape.map((d, i) => d + begin[i] + end[i]);
  const padded = b.op('Pad', inputs, f32(shape, Math.max(x.mag, 0.5)), reflect ? { mode: 'reflect' } : {});
  maybeAlsoRead(b, padded, 0.1);
  // The reader: a Conv (explicit pads, sometimes auto_pad) or a pool (an AveragePool mostly, either count_include_pad).
  const [, c, h, w] = shape;
  const k = r.pick([1, 2, 3].filter((v) => v <= h && v <= w));
  const own = r.chance(0.4) ? [r.int(0, k - 1), r.int(0, k - 1), r.int(0, k - 1), r.int(0, k - 1)] : [0, 0, 0, 0];
  const stride = r.pick([1, 1, 2]);
  const out = [h, w].map((d, i) => Math.floor((d + own[i] + own[i + 2] - k) / stride) + 1);
  const window: Record<string, number | number[] | string> = { kernel_shape: [k, k], strides: [stride, stride] };
  if (own.some((p) => p > 0) || r.chance(0.5)) window.pads = own;
  if (begin[1] === 0 && r.chance(0.6)) {
    const m = r.int(1, 8);
    if (r.chance(0.15)) {
      delete window.pads;
      window.auto_pad = 'SAME_UPPER';
      out[0] = Math.ceil(h / stride);
      out[1] = Math.ceil(w / stride);
    }
    return b.op('Conv', [padded, weights(b, [m, c, k, k], c * k * k)], f32([shape[0], m, ...out], padded.mag * 2 + 0.5), window);
  }
  if (r.chance(0.25)) return pool(b, padded);
  if (r.chance(0.5)) window.count_include_pad = 1;
  return b.op('AveragePool', [padded], f32([shape[0], c, ...out], padded.mag), window);
}
