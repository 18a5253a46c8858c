/**
 * Ops that rearrange a tensor without computing on it: Reshape, Flatten, Transpose, Squeeze,
 * Unsqueeze, Expand, Tile, DepthToSpace/SpaceToDepth, and the shape queries Shape and Size.
 */
import type { InferContext, ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { broadcastShapes, dimProduct, isStaticShape, mapDim, normalizeAxes } from '../dims.js';

/** A rank no real model reaches: a declared length beyond it is treated as unknown, not allocated. */
const MAX_RANK = 1024;

/**
 * A shape given as a tensor input (Reshape's `shape`, Expand's target, ConstantOfShape's input):
 * its known elements, or unknown elements of a known count when only the input's length is known.
 */
export function shapeOperand(ctx: InferContext, i: number): Dim[] | undefined {
  const v = ctx.value(i);
  if (v && v.dims.length <= 1) return v.values.map((x) => (typeof x === 'number' && !Number.isInteger(x) ? undefined : x));
  const s = ctx.shape(i);
  if (s && s.length === 1 && typeof s[0] === 'number' && s[0] <= MAX_RANK) return Array<Dim>(s[0]).fill(undefined);
  return undefined;
}

/** Resolves Reshape's target against the input shape: 0 copies (unless allowzero), -1 is inferred. */
export function reshapeShape(input: readonly Dim[] | undefined, target: readonly Dim[], allowZero: boolean): Dim[] {
  const out: Dim[] = target.map((t, i) => (t === 0 && !allowZero ? input?.[i] : t));
  const inferIndex = out.indexOf(-1);
  if (inferIndex < 0) return out;
  out[inferIndex] = undefined;
  if (!input) return out;
  // Cancel dims that appear on both sides, then what is left of the input must be the -1.
  const rest = [...input];
  const others: Dim[] = [];
  out.forEach((d, i) => {
    if (i === inferIndex) return;
    const k = d === undefined ? -1 : rest.indexOf(d);
    if (k >= 0) rest.splice(k, 1);
    else others.push(d);
  });
  if (others.some((d) => typeof d !== 'number')) return out;
  const divisor = (others as number[]).reduce((a, b) => a * b, 1);
  const remaining = dimProduct(rest);
  if (typeof remaining === 'number') {
    if (divisor > 0 && remaining % divisor === 0) out[inferIndex] = remaining / divisor;
  } else if (typeof remaining === 'string' && divisor === 1) {
    out[inferIndex] = remaining;
  }
  return out;
}

const reshape: ShapeRule = (ctx) => {
  const target = ctx.opset < 5 ? ctx.attrs.ints('shape', []) : shapeOperand(ctx, 1);
  if (!target) return ctx.setShape(0, undefined);
  const allowZero = ctx.opset >= 14 && ctx.attrs.int('allowzero', 0) === 1;
  ctx.setShape(0, reshapeShape(ctx.shape(0), target, allowZero));
};

const flatten: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined);
  const raw = ctx.attrs.int('axis', 1);
  const axis = raw < 0 ? raw + x.length : raw;
  if (axis < 0 || axis > x.length) return;
  ctx.setShape(0, [dimProduct(x.slice(0, axis)), dimProduct(x.slice(axis))]);
};

const transpose: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined);
  const perm = ctx.attrs.ints('perm', x.map((_, i) => x.length - 1 - i));
  if (perm.length !== x.length || !normalizeAxes(perm, x.length)) return;
  ctx.setShape(0, perm.map((p) => x[p]));
};

/** Squeeze/Unsqueeze axes: an attribute before opset 13, the second input from it on. */
function axesOperand(ctx: InferContext): number[] | undefined | 'absent' {
  if (ctx.opset < 13) return ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : 'absent';
  if (!ctx.hasInput(1)) return 'absent';
  return ctx.ints(1);
}

/** How many axes a non-constant axes input holds, when its length is static (NaN otherwise). */
function axesCount(ctx: InferContext): number {
  const s = ctx.shape(1);
  return s?.length === 1 && typeof s[0] === 'number' ? s[0] : NaN;
}

/** A shape of `rank` unknown dims; unknown rank when `rank` is not a valid count. */
function unknownDims(rank: number): Dim[] | undefined {
  return Number.isInteger(rank) && rank >= 0 && rank <= MAX_RANK ? Array<Dim>(rank).fill(undefined) : undefined;
}

const squeeze: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const axes = axesOperand(ctx);
  if (!x) return ctx.setShape(0, undefined);
  if (axes === undefined) return ctx.setShape(0, unknownDims(x.length - axesCount(ctx)));
  if (axes === 'absent') {
    // Every unit dim goes; a symbolic or unknown dim might be 1, so the rank is then unknown.
    ctx.setShape(0, isStaticShape(x) ? x.filter((d) => d !== 1) : undefined);
    return;
  }
  const norm = normalizeAxes(axes, x.length);
  if (!norm) return ctx.setShape(0, undefined);
  ctx.setShape(0, x.filter((_, i) => !norm.includes(i)));
};

const unsqueeze: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const axes = axesOperand(ctx);
  if (!x || axes === 'absent') return ctx.setShape(0, undefined);
  if (axes === undefined) return ctx.setShape(0, unknownDims(x.length + axesCount(ctx)));
  const rank = x.length + axes.length;
  const norm = normalizeAxes(axes, rank);
  if (!norm) return ctx.setShape(0, undefined);
  const out: Dim[] = [];
  let next = 0;
  for (let i = 0; i < rank; i++) out.push(norm.includes(i) ? 1 : x[next++]);
  ctx.setShape(0, out);
};

const expand: ShapeRule = (ctx) => {
  const target = shapeOperand(ctx, 1);
  ctx.setShape(0, target ? broadcastShapes([ctx.shape(0), target]) : undefined);
};

const tile: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined);
  const repeats = ctx.ints(1);
  if (!repeats || repeats.length !== x.length) return ctx.setShape(0, x.map((d) => (d === 0 ? 0 : undefined)));
  ctx.setShape(0, x.map((d, i) => (repeats[i] === 1 ? d : mapDim(d, (n) => n * repeats[i]))));
};

/** Shape, with opset-15 `start`/`end` slicing (clamped, negatives from the end). */
const shape: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, [undefined], 'int64');
  const r = x.length;
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + r : v, 0), r);
  const start = clamp(ctx.opset >= 15 ? ctx.attrs.int('start', 0) : 0);
  const end = ctx.opset >= 15 && ctx.attrs.has('end') ? clamp(ctx.attrs.int('end')) : r;
  const dims = x.slice(start, Math.max(start, end));
  ctx.setShape(0, [dims.length], 'int64');
  ctx.setValue(0, { type: 'int64', dims: [dims.length], values: dims });
};

const size: ShapeRule = (ctx) => {
  ctx.setShape(0, [], 'int64');
  const x = ctx.shape(0);
  const n = x ? dimProduct(x) : undefined;
  if (n !== undefined) ctx.setValue(0, { type: 'int64', dims: [], values: [n] });
};

const depthToSpace: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const b = ctx.attrs.int('blocksize');
  if (!x || x.length !== 4) return ctx.setShape(0, undefined);
  ctx.setShape(0, [x[0], mapDim(x[1], (c) => c / (b * b)), mapDim(x[2], (h) => h * b), mapDim(x[3], (w) => w * b)]);
};

const spaceToDepth: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const b = ctx.attrs.int('blocksize');
  if (!x || x.length !== 4) return ctx.setShape(0, undefined);
  ctx.setShape(0, [x[0], mapDim(x[1], (c) => c * b * b), mapDim(x[2], (h) => h / b), mapDim(x[3], (w) => w / b)]);
};

export const reshapeRules: Record<string, ShapeRule> = {
  Reshape: reshape,
  Flatten: flatten,
  Transpose: transpose,
  Squeeze: squeeze,
  Unsqueeze: unsqueeze,
  Expand: expand,
  Tile: tile,
  Shape: shape,
  Size: size,
  DepthToSpace: depthToSpace,
  SpaceToDepth: spaceToDepth,
};
