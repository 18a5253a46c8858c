/** Random heavy and normalizing nodes: MatMul, Gemm, Conv, BatchNormalization, pooling, Softmax, LayerNormalization, reductions. */
import { Tensor } from '../../tensor/tensor.js';
import { broadcastShapes } from './elementwise-ops.js';
import { elementsOf, type GraphBuilder, type RandomValue } from './graph-builder.js';

/** Weights scaled by fan-in so a product keeps its input's magnitude. */
export function weights(b: GraphBuilder, shape: readonly number[], fanIn: number): RandomValue {
  const bound = Math.sqrt(3 / fanIn);
  return b.constant(b.floats(shape, -bound, bound), 'w', bound);
}

/** Weights computed at run time (a graph input, scaled): no pass may treat them as constants. */
function computedWeights(b: GraphBuilder, shape: readonly number[], fanIn: number): RandomValue {
  const w = b.input('float32', shape);
  return b.op('Mul', [w, b.constant(new Tensor('float32', Float32Array.of(Math.sqrt(3 / fanIn)), []))], { dtype: 'float32', shape, mag: Math.sqrt(3 / fanIn) });
}

/** numpy matmul's result shape, or undefined when the operands do not fit. */
export function matMulShape(a: readonly number[], w: readonly number[]): number[] | undefined {
  const a2 = a.length === 1 ? [1, a[0]] : a;
  const w2 = w.length === 1 ? [w[0], 1] : w;
  if (a2[a2.length - 1] !== w2[w2.length - 2]) return undefined;
  const batch = broadcastShapes(a2.slice(0, -2), w2.slice(0, -2));
  if (!batch) return undefined;
  const out = [...batch, a2[a2.length - 2], w2[w2.length - 1]];
  if (a.length === 1) out.splice(out.length - 2, 1);
  if (w.length === 1) out.pop();
  return out;
}

/** MatMul by constant weights (2-D or batched) or by another value of the graph. */
export function matMul(b: GraphBuilder): RandomValue | undefined {
  const a = b.pickFloat((v) => v.shape.length >= 1 && v.shape.length <= 4 && v.shape[v.shape.length - 1] <= 64);
  if (!a) return undefined;
  const x = b.tame(a);
  const r = b.rng;
  const k = x.shape[x.shape.length - 1];
  let w: RandomValue | undefined;
  if (r.chance(0.3) && x.shape.length >= 2) {
    // Another activation: A·Aᵀ-like products, as attention computes them.
    w = b.pickFloat((v) => v.mag <= 6 && matMulShape(x.shape, v.shape) !== undefined && elementsOf(matMulShape(x.shape, v.shape)!) <= 4096);
  }
  if (!w) {
    const n = r.int(1, 16);
    const batch = x.shape.length >= 3 && r.chance(0.2) ? x.shape.slice(-3, -2) : [];
    w = r.chance(0.1) ? weights(b, [k], k) : weights(b, [...batch, k, n], k);
  }
  const shape = matMulShape(x.shape, w.shape)!;
  return b.op('MatMul', [x, w], { dtype: 'float32', shape, mag: x.mag * w.mag * Math.sqrt(k) });
}

/** Gemm on a 2-D value with every attribute: transA/transB, alpha/beta, C of any broadcastable shape. */
export function gemm(b: GraphBuilder): RandomValue | undefined {
  const found = b.pickFloat((v) => v.shape.length === 2 && v.shape[0] <= 64 && v.shape[1] <= 64);
  if (!found) return undefined;
  const a = b.tame(found);
  const r = b.rng;
  const transA = r.chance(0.2) ? 1 : 0;
  const [m, k] = transA ? [a.shape[1], a.shape[0]] : [a.shape[0], a.shape[1]];
  const n = r.int(1, 12);
  const transB = r.chance(0.4) ? 1 : 0;
  const w = weights(b, transB ? [n, k] : [k, n], k);
  const cShape = r.pick([[n], [1, n], [m, n], [m, 1], [], [1]]);
  const inputs: RandomValue[] = [a, w];
  if (r.chance(0.75)) inputs.push(b.constant(b.floats(cShape, -1, 1)));
  const attrs: Record<string, number | { float: number }> = {};
  if (transA) attrs.transA = 1;
  if (transB) attrs.transB = 1;
  if (r.chance(0.3)) attrs.alpha = { float: r.pick([0.5, 2, -1]) };
  if (r.chance(0.3)) attrs.beta = { float: r.pick([0.5, 2, 0]) };
  return b.op('Gemm', inputs, { dtype: 'float32', shape: [m, n], mag: a.mag * 2 * Math.sqrt(k) + 2 }, attrs);
}

/** Output length of a window op along one axis (explicit pads, floor or ceil mode). */
function windowOut(size: number, kernel: number, stride: number, dilation: number, padBegin: number, padEnd: number, ceil = false): number {
  const span = dilation * (kernel - 1) + 1;
  const q = (size + padBegin + padEnd - span) / stride;
  let out = (ceil ? Math.ceil(q) : Math.floor(q)) + 1;
  // ceil_mode: a last window starting in the end padding is dropped.
  if (ceil && (out - 1) * stride >= size + padBegin) out--;
  return out;
}

interface Window {
  kernel: number[];
  strides: number[];
  dilations: number[];
  pads: number[];
  autoPad?: 'SAME_UPPER' | 'SAME_LOWER' | 'VALID';
  out: number[];
}

/** A random window over `spatial` dims, or undefined when it would leave nothing. */
function randomWindow(b: GraphBuilder, spatial: readonly number[], kernels: readonly number[], opts: { dilate: boolean; autoPad: boolean; maxPadOfKernel: boolean }): Window | undefined {
  const r = b.rng;
  const kernel = spatial.map((d) => r.pick(kernels.filter((k) => k <= d + 2)));
  const strides = spatial.map(() => (r.chance(0.3) ? 2 : 1));
  const dilations = spatial.map((_, i) => (opts.dilate && kernel[i] > 1 && r.chance(0.15) ? 2 : 1));
  if (opts.autoPad && r.chance(0.2)) {
    const autoPad = r.pick(['SAME_UPPER', 'SAME_LOWER', 'VALID'] as const);
    const out = spatial.map((d, i) => (autoPad === 'VALID' ? Math.floor((d - (dilations[i] * (kernel[i] - 1) + 1)) / strides[i]) + 1 : Math.ceil(d / strides[i])));
    if (out.some((o) => o < 1)) return undefined;
    return { kernel, strides, dilations, pads: [], autoPad, out };
  }
  const pad = (i: number) => {
    const limit = opts.maxPadOfKernel ? kernel[i] - 1 : Math.floor((dilations[i] * (kernel[i] - 1)) / 2) + 1;
    return r.chance(0.5) ? Math.floor((dilations[i] * (kernel[i] - 1)) / 2) : r.int(0, Math.max(0, limit));
  };
  const begins = spatial.map((_, i) => Math.min(pad(i), kernel[i] - 1));
  const ends = spatial.map((_, i) => Math.min(pad(i), kernel[i] - 1));
  const out = spatial.map((d, i) => windowOut(d, kernel[i], strides[i], dilations[i], begins[i], ends[i]));
  if (out.some((o) => o < 1)) return undefined;
  return { kernel, strides, dilations, pads: [...begins, ...ends], out };
}

function windowAttrs(b: GraphBuilder, w: Window, withDilations: boolean): Record<string, number[] | string> {
  const attrs: Record<string, number[] | string> = { kernel_shape: w.kernel };
  if (w.autoPad) attrs.auto_pad = w.autoPad;
  // Zero pads written out or left out mean the same.
  else if (w.pads.some((p) => p > 0) || b.rng.chance(0.5)) attrs.pads = w.pads;
  if (w.strides.some((s) => s !== 1)) attrs.strides = w.strides;
  if (withDilations && w.dilations.some((d) => d !== 1)) attrs.dilations = w.dilations;
  return attrs;
}

/** Conv (2-D, sometimes 1-D) of any group count, depthwise included, with or without bias. */
export function conv(b: GraphBuilder, input?: RandomValue): RandomValue | undefined {
  const found = input ?? b.pickFloat((v) => (v.shape.length === 4 || v.shape.length === 3) && v.shape[1] <= 32 && elementsOf(v.shape) <= 8192);
  if (!found) return undefined;
  const x = b.tame(found);
  const r = b.rng;
  const c = x.shape[1];
  const kind = r.weighted([['plain', 5], ['depthwise', 2], ['grouped', 1]] as const);
  const divisors = [2, 3, 4].filter((g) => c % g === 0);
  const group = kind === 'depthwise' ? c : kind === 'grouped' && divisors.length ? r.pick(divisors) : 1;
  const m = group === c && kind === 'depthwise' ? c * r.pick([1, 1, 2]) : group * r.int(1, Math.max(1, Math.floor(16 / group)));
  const w = randomWindow(b, x.shape.slice(2), [1, 1, 3, 3, 5], { dilate: true, autoPad: true, maxPadOfKernel: false });
  if (!w) return undefined;
  const fanIn = (c / group) * elementsOf(w.kernel);
  const inputs = [x, r.chance(0.1) ? computedWeights(b, [m, c / group, ...w.kernel], fanIn) : weights(b, [m, c / group, ...w.kernel], fanIn)];
  if (r.chance(0.7)) inputs.push(b.constant(b.floats([m], -0.5, 0.5), 'bias'));
  const attrs: Record<string, number | number[] | string> = windowAttrs(b, w, true);
  if (group !== 1) attrs.group = group;
  if (r.chance(0.5)) delete attrs.kernel_shape; // inferred from the weights
  return b.op('Conv', inputs, { dtype: 'float32', shape: [x.shape[0], m, ...w.out], mag: x.mag * 2 + 0.5 }, attrs);
}

/** BatchNormalization in inference mode with constant statistics (a positive variance). */
export function batchNorm(b: GraphBuilder, input?: RandomValue): RandomValue | undefined {
  const x = input ?? b.pickFloat((v) => v.shape.length >= 2 && v.shape.length <= 4);
  if (!x) return undefined;
  const c = x.shape[1];
  const stats = [b.floats([c], 0.5, 1.5), b.floats([c], -0.5, 0.5), b.floats([c], -0.5, 0.5), b.floats([c], 0.25, 2)].map((t) => b.constant(t, 'bn'));
  const attrs = b.rng.chance(0.5) ? { epsilon: { float: b.rng.pick([1e-5, 1e-3]) } } : {};
  return b.op('BatchNormalization', [x, ...stats], { dtype: 'float32', shape: x.shape, mag: (x.mag + 0.5) * 3 + 0.5 }, attrs);
}

/** MaxPool / AveragePool with pads, strides, ceil_mode; or a global pool. */
export function pool(b: GraphBuilder, input?: RandomValue): RandomValue | undefined {
  const x = input ?? b.pickFloat((v) => v.shape.length === 4 || (v.shape.length === 3 && b.rng.chance(0.3)));
  if (!x) return undefined;
  const r = b.rng;
  const kind = r.weighted([['MaxPool', 3], ['AveragePool', 3], ['GlobalAveragePool', 1], ['GlobalMaxPool', 1]] as const);
  if (kind === 'GlobalAveragePool' || kind === 'GlobalMaxPool') {
    return b.op(kind, [x], { dtype: 'float32', shape: [...x.shape.slice(0, 2), ...x.shape.slice(2).map(() => 1)], mag: x.mag });
  }
  const w = randomWindow(b, x.shape.slice(2), [1, 2, 2, 3], { dilate: kind === 'MaxPool', autoPad: true, maxPadOfKernel: true });
  if (!w) return undefined;
  const attrs: Record<string, number | number[] | string> = windowAttrs(b, w, kind === 'MaxPool');
  if (!w.autoPad && r.chance(0.2)) {
    // ceil_mode: recompute the output with ceil, dropping a window that would start in the padding.
    const spatial = x.shape.slice(2);
    const n = spatial.length;
    w.out = spatial.map((d, i) => windowOut(d, w.kernel[i], w.strides[i], w.dilations[i], w.pads[i], w.pads[n + i], true));
    attrs.ceil_mode = 1;
  }
  if (kind === 'AveragePool' && r.chance(0.4)) attrs.count_include_pad = 1;
  const shape = [...x.shape.slice(0, 2), ...w.out];
  if (kind === 'MaxPool' && r.chance(0.1)) {
    // The optional Indices output (int64): a second output some fusions must not drop.
    return b.node(kind, [x], [{ dtype: 'float32', shape, mag: x.mag }, { dtype: 'int64', shape, mag: 1 }], attrs)[0];
  }
  return b.op(kind, [x], { dtype: 'float32', shape, mag: x.mag }, attrs);
}

export function softmax(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const rank = x.shape.length;
  const axis = b.rng.chance(0.5) ? -1 : b.rng.int(-rank, rank - 1);
  return b.op('Softmax', [x], { dtype: 'float32', shape: x.shape, mag: 1 }, axis === -1 && b.rng.chance(0.5) ? {} : { axis });
}

/** LayerNormalization (opset 17 on) over the trailing axes from `axis`, scale and optional bias of that shape. */
export function layerNorm(b: GraphBuilder, input?: RandomValue): RandomValue | undefined {
  if (b.opset < 17) return undefined;
  const x = input ?? b.pickFloat((v) => v.shape.length >= 1 && v.shape[v.shape.length - 1] >= 2);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const axis = r.chance(0.6) ? -1 : r.int(-rank, rank - 1);
  const normalized = x.shape.slice(axis < 0 ? axis + rank : axis);
  const inputs = [x, b.constant(b.floats(normalized, 0.5, 1.5), 'gamma')];
  if (r.chance(0.7)) inputs.push(b.constant(b.floats(normalized, -0.5, 0.5), 'beta'));
  const attrs = { ...(axis !== -1 || r.chance(0.5) ? { axis } : {}), ...(r.chance(0.5) ? { epsilon: { float: 1e-5 } } : {}) };
  return b.op('LayerNormalization', inputs, { dtype: 'float32', shape: x.shape, mag: 1.5 * Math.sqrt(elementsOf(normalized)) + 0.5 }, attrs);
}

/** ReduceMean / ReduceMax (axes as the opset has them) or ReduceSum (axes input), keepdims either way. */
export function reduce(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const op = r.pick(['ReduceMean', 'ReduceMean', 'ReduceMax', 'ReduceSum']);
  const axes = r.shuffle(Array.from({ length: rank }, (_, i) => i)).slice(0, r.int(1, Math.min(2, rank)));
  const keepdims = r.chance(0.6) ? 1 : 0;
  const shape = keepdims ? x.shape.map((d, i) => (axes.includes(i) ? 1 : d)) : x.shape.filter((_, i) => !axes.includes(i));
  const signed = axes.map((a) => (r.chance(0.3) ? a - rank : a));
  const mag = op === 'ReduceSum' ? x.mag * elementsOf(axes.map((a) => x.shape[a])) : x.mag;
  const attrs: Record<string, number | number[]> = keepdims === 1 && r.chance(0.5) ? {} : { keepdims };
  if (op === 'ReduceSum') return b.op(op, [x, b.constant(b.int64s(signed), 'axes')], { dtype: 'float32', shape, mag }, attrs);
  return b.reduce(op, x, signed, { dtype: 'float32', shape, mag }, attrs);
}

/** A scalar float32 constant (rank 0 or [1]). */
export function scalarConstant(b: GraphBuilder, value: number, rank0 = b.rng.chance(0.6)): RandomValue {
  return b.constant(new Tensor('float32', Float32Array.of(value), rank0 ? [] : [1]));
}

/**
 * Einsum of two fresh operands: attention's and projection forms that are one batched product (the CPU EP
 * runs them as a strided matmul), and forms that are not (an index summed inside one operand, two free indices).
 */
export function einsum(b: GraphBuilder): RandomValue | undefined {
  const r = b.rng;
  const [equation, aSpec, bSpec] = r.pick([
    ['bqhd,bkhd->bhqk', 'bqhd', 'bkhd'],
    ['bhqk,bkhd->bqhd', 'bhqk', 'bkhd'],
    ['bij,bjk->bik', 'bij', 'bjk'],
    ['ij,jk->ki', 'ij', 'jk'],
    ['bi,bj->bij', 'bi', 'bj'],
    ['nchw,kc->nkhw', 'nchw', 'kc'],
    ['ij,jk->k', 'ij', 'jk'],
  ] as const);
  const size = new Map<string, number>();
  for (const c of new Set(aSpec + bSpec)) size.set(c, r.int(1, 5));
  const dimsOf = (spec: string) => [...spec].map((c) => size.get(c)!);
  const out = equation.slice(equation.indexOf('->') + 2);
  // A is shifted by a value of the graph, so constant folding leaves the Einsum to the EP (a shift, not a
  // scale: a tiny scale would make a LayerNorm after it ill-conditioned).
  const src = b.pickFloat((v) => v.shape.length >= 1);
  if (!src) return undefined;
  const mean = b.op('ReduceMean', [b.tame(src)], { dtype: 'float32', shape: [], mag: src.mag }, { keepdims: 0 });
  const x = b.op('Add', [b.constant(b.floats(dimsOf(aSpec), -1, 1), 'ea'), mean], { dtype: 'float32', shape: dimsOf(aSpec), mag: mean.mag + 1 });
  const y = b.pickFloat((v) => v.shape.length === bSpec.length && [...bSpec].every((c, i) => v.shape[i] === size.get(c))) ?? b.constant(b.floats(dimsOf(bSpec), -1, 1), 'eb');
  return b.op('Einsum', [x, y], { dtype: 'float32', shape: dimsOf(out), mag: x.mag * y.mag * 8 + 0.5 }, { equation });
}
