/**
 * Ops whose output size depends on data or on a count operand: TopK, NonZero, Unique, Compress,
 * OneHot, NonMaxSuppression, Resize/Upsample. Data-dependent sizes stay unknown.
 */
import type { InferContext, ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { normalizeAxis } from '../dims.js';
import { scaledDim } from '../derived-dims.js';

const topK: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return;
  const axis = normalizeAxis(ctx.attrs.int('axis', -1), x.length);
  if (axis === undefined) return;
  const k = ctx.opset < 10 ? ctx.attrs.int('k', -1) : ctx.scalar(1);
  const out = [...x];
  out[axis] = k !== undefined && k >= 0 ? k : undefined;
  ctx.setShape(0, out);
  ctx.setShape(1, [...out], 'int64');
};

const nonZero: ShapeRule = (ctx) => ctx.setShape(0, [ctx.rank(0), undefined], 'int64');

const unique: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const axisAttr = ctx.attrs.has('axis') ? ctx.attrs.int('axis') : undefined;
  if (axisAttr === undefined) {
    ctx.setShape(0, [undefined]);
    const total = x && x.every((d) => typeof d === 'number') ? (x as number[]).reduce((a, b) => a * b, 1) : undefined;
    ctx.setShape(2, [total], 'int64');
  } else {
    const axis = x ? normalizeAxis(axisAttr, x.length) : undefined;
    ctx.setShape(0, x && axis !== undefined ? x.map((d, i) => (i === axis ? undefined : d)) : undefined);
    ctx.setShape(2, [axis !== undefined ? x?.[axis] : undefined], 'int64');
  }
  ctx.setShape(1, [undefined], 'int64');
  ctx.setShape(3, [undefined], 'int64');
};

const compress: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!ctx.attrs.has('axis')) return ctx.setShape(0, [undefined]);
  const axis = x ? normalizeAxis(ctx.attrs.int('axis'), x.length) : undefined;
  ctx.setShape(0, x && axis !== undefined ? x.map((d, i) => (i === axis ? undefined : d)) : undefined);
};

const oneHot: ShapeRule = (ctx) => {
  const indices = ctx.shape(0);
  if (!indices) return ctx.setShape(0, undefined, ctx.elemType(2));
  const axis = normalizeAxis(ctx.attrs.int('axis', -1), indices.length + 1);
  if (axis === undefined) return;
  const depth = ctx.scalar(1);
  const out: Dim[] = [...indices];
  out.splice(axis, 0, depth !== undefined ? Math.trunc(depth) : undefined);
  ctx.setShape(0, out, ctx.elemType(2));
};

const nonMaxSuppression: ShapeRule = (ctx) => ctx.setShape(0, [undefined, 3], 'int64');

/** Output sizes from explicit `sizes`, else `floor(dim × scale)`; both must be known constants. */
/** floor(d · scale) for a symbolic d: `2*H` for an integer factor (what ConvTranspose k2 s2 also gives), else spelled out. */
function scaledSymbol(d: string, scale: number): string | undefined {
  if (!(scale > 0) || !Number.isFinite(scale)) return undefined;
  return Number.isInteger(scale) ? scaledDim(d, scale) : `floor(${d}*${scale})`;
}

function resizedShape(x: readonly Dim[], scales: number[] | undefined, sizes: readonly Dim[] | undefined): Dim[] {
  if (sizes && sizes.length === x.length) return [...sizes];
  if (scales && scales.length === x.length) {
    return x.map((d, i) => (scales[i] === 1 ? d : typeof d === 'number' ? Math.floor(d * scales[i]) : d === undefined ? undefined : scaledSymbol(d, scales[i])));
  }
  return x.map(() => undefined);
}

/**
 * Opset 18's `axes` and keep_aspect_ratio_policy: sizes or scales for the listed axes only, and with a
 * policy other than stretch one scale for all of them, round(scale · dim) each.
 */
function resizedShapeWithAxes(x: readonly Dim[], axesAttr: number[] | undefined, keep: string, scales: number[] | undefined, sizes: number[] | undefined): Dim[] {
  const unknown = x.map(() => undefined);
  const axes = (axesAttr ?? x.map((_, i) => i)).map((a) => normalizeAxis(a, x.length));
  if (axes.some((a) => a === undefined)) return unknown;
  const listed = axes as number[];
  const out: Dim[] = [...x];
  if (sizes && sizes.length === listed.length) {
    if (keep === 'stretch') {
      listed.forEach((a, i) => (out[a] = sizes[i]));
      return out;
    }
    const dims = listed.map((a) => x[a]);
    if (!dims.every((d): d is number => typeof d === 'number' && d > 0)) return x.map((d, i) => (listed.includes(i) ? undefined : d));
    const ratios = listed.map((_, i) => sizes[i] / dims[i]);
    const scale = keep === 'not_larger' ? Math.min(...ratios) : Math.max(...ratios);
    listed.forEach((a, i) => (out[a] = Math.floor(scale * dims[i] + 0.5)));
    return out;
  }
  if (scales && scales.length === listed.length) {
    listed.forEach((a, i) => {
      const d = x[a];
      out[a] = scales[i] === 1 ? d : typeof d === 'number' ? Math.floor(d * scales[i]) : undefined;
    });
    return out;
  }
  return unknown;
}

/** Resize: opset 10 takes scales as input 1; from 11, roi/scales/sizes are inputs 1–3; from 18, `axes` and keep_aspect_ratio_policy. */
const resize: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return;
  const scales = ctx.opset < 11 ? ctx.numbers(1) : ctx.numbers(2);
  const sizes = ctx.opset < 11 ? undefined : ctx.ints(3);
  const axes = ctx.opset >= 18 && ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : undefined;
  const keep = ctx.opset >= 18 ? ctx.attrs.string('keep_aspect_ratio_policy', 'stretch') : 'stretch';
  if (axes || keep !== 'stretch') return ctx.setShape(0, resizedShapeWithAxes(x, axes, keep, scales?.length ? scales : undefined, sizes));
  ctx.setShape(0, resizedShape(x, scales?.length ? scales : undefined, sizes ?? symbolicSizes(ctx)));
};

/**
 * Sizes built from Shape arithmetic (exporters write `Concat(Slice(Shape(x), 0, 2), Cast(Shape(y)[2:]))` to
 * resize to another tensor's H x W): the known elements, symbols included, are the output dims. Without
 * them the output's N and C are unknown too, and passes that need them (the CPU EP keeps such a Resize in its
 * channel-blocked layout only when N and C are unchanged) leave the node alone.
 */
function symbolicSizes(ctx: InferContext): Dim[] | undefined {
  const v = ctx.opset < 11 ? undefined : ctx.value(3);
  if (!v || v.dims.length !== 1) return undefined;
  return v.values.every((d) => typeof d !== 'number' || (Number.isInteger(d) && d >= 0)) ? v.values : undefined;
}

/** Upsample: scales are an attribute before opset 9, input 1 after. */
const upsample: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return;
  const scales = ctx.opset < 9 ? ctx.attrs.floats('scales', []) : ctx.numbers(1);
  ctx.setShape(0, resizedShape(x, scales, undefined));
};

export const selectRules: Record<string, ShapeRule> = {
  TopK: topK,
  NonZero: nonZero,
  Unique: unique,
  Compress: compress,
  OneHot: oneHot,
  NonMaxSuppression: nonMaxSuppression,
  Resize: resize,
  Upsample: upsample,
};
