/** Ops that select or assemble parts of tensors: Concat, Split, Slice, Gather*, Pad. */
import type { InferContext, ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { mapDim, normalizeAxes, normalizeAxis, unifyDim } from '../dims.js';

const concat: ShapeRule = (ctx) => {
  const shapes = ctx.node.inputs.map((_, i) => ctx.shape(i));
  const first = shapes.find((s) => s !== undefined);
  if (!first) return ctx.setShape(0, undefined);
  // Before opset 4 the axis defaulted to 1.
  const axis = normalizeAxis(ctx.attrs.int('axis', ctx.opset < 4 ? 1 : 0), first.length);
  if (axis === undefined) return;
  const out: Dim[] = first.map(() => undefined);
  let total: number | undefined = 0;
  for (const s of shapes) {
    if (!s) {
      total = undefined;
      continue;
    }
    if (s.length !== first.length) return ctx.setShape(0, undefined);
    s.forEach((d, i) => {
      if (i !== axis) out[i] = unifyDim(out[i], d);
    });
    const d = s[axis];
    total = total !== undefined && typeof d === 'number' ? total + d : undefined;
  }
  out[axis] = shapes.length === 1 ? first[axis] : total;
  ctx.setShape(0, out);
};

/** Split sizes: the `split` attribute before opset 13 (or input 1 in opset 2's form), input 1 after. */
function splitSizes(ctx: InferContext): number[] | undefined | 'even' {
  if (ctx.attrs.has('split')) return ctx.attrs.ints('split');
  if (ctx.hasInput(1)) return ctx.ints(1);
  return 'even';
}

const split: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const n = ctx.outputs.length;
  if (!x) return;
  const axis = normalizeAxis(ctx.attrs.int('axis', 0), x.length);
  if (axis === undefined) return;
  const sizes = splitSizes(ctx);
  for (let o = 0; o < n; o++) {
    const out = [...x];
    if (sizes === 'even') {
      const d = x[axis];
      if (typeof d !== 'number') out[axis] = undefined;
      else if (ctx.attrs.has('num_outputs')) {
        // Opset 18's num_outputs: parts of ceil(d / n), the last one smaller when d does not divide.
        const part = Math.ceil(d / n);
        out[axis] = o < n - 1 ? part : d - part * (n - 1);
      } else out[axis] = d % n === 0 ? d / n : undefined;
    } else {
      out[axis] = sizes?.length === n ? sizes[o] : undefined;
    }
    ctx.setShape(o, out);
  }
};

/** Start index and element count of a slice of a dim of known size, after ONNX's clamping. */
export function sliceRange(dim: number, start: number, end: number, step: number): { start: number; count: number } {
  let s = start < 0 ? start + dim : start;
  let e = end < 0 ? end + dim : end;
  if (step > 0) {
    s = Math.min(Math.max(s, 0), dim);
    e = Math.min(Math.max(e, 0), dim);
    return { start: s, count: Math.max(0, Math.ceil((e - s) / step)) };
  }
  s = Math.min(Math.max(s, 0), dim - 1);
  e = Math.min(Math.max(e, -1), dim - 1);
  return { start: s, count: Math.max(0, Math.ceil((s - e) / -step)) };
}

/** `end` values at least this large mean "to the end" whatever the dim (INT_MAX-style sentinels). */
const TO_END = 2 ** 31 - 1;

/** Whether a slice takes every element of a dim whatever its size (x[:] or x[::-1]). */
function coversWholeDim(start: number, end: number, step: number): boolean {
  if (step === 1) return start === 0 && end >= TO_END;
  if (step === -1) return (start === -1 || start >= TO_END) && end <= -TO_END;
  return false;
}

export interface SliceParams {
  starts: number[];
  ends: number[];
  axes: number[];
  steps: number[];
}

/** Slice parameters from attributes (opset < 10) or constant inputs; undefined when not known. */
export function sliceParams(ctx: InferContext, rank: number): SliceParams | undefined {
  let starts: number[] | undefined;
  let ends: number[] | undefined;
  let axes: number[] | undefined;
  let steps: number[] | undefined;
  if (ctx.opset < 10) {
    starts = ctx.attrs.ints('starts', []);
    ends = ctx.attrs.ints('ends', []);
    axes = ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : undefined;
  } else {
    starts = ctx.ints(1);
    ends = ctx.ints(2);
    if (ctx.hasInput(3)) axes = ctx.ints(3) ?? [];
    if (ctx.hasInput(4)) steps = ctx.ints(4) ?? [];
  }
  if (!starts || !ends || starts.length !== ends.length) return undefined;
  const normAxes = normalizeAxes(axes ?? starts.map((_, i) => i), rank);
  steps ??= starts.map(() => 1);
  if (!normAxes || normAxes.length !== starts.length || steps.length !== starts.length || steps.includes(0)) return undefined;
  return { starts, ends, axes: normAxes, steps };
}

const slice: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined);
  const p = sliceParams(ctx, x.length);
  if (!p) return ctx.setShape(0, x.map(() => undefined));
  const out = [...x];
  p.axes.forEach((axis, k) => {
    const d = x[axis];
    const [start, end, step] = [p.starts[k], p.ends[k], p.steps[k]];
    if (typeof d === 'number') out[axis] = sliceRange(d, start, end, step).count;
    else out[axis] = coversWholeDim(start, end, step) ? d : undefined;
  });
  ctx.setShape(0, out);
};

const gather: ShapeRule = (ctx) => {
  const data = ctx.shape(0);
  const indices = ctx.shape(1);
  if (!data || !indices) return ctx.setShape(0, undefined);
  const axis = normalizeAxis(ctx.attrs.int('axis', 0), data.length);
  if (axis === undefined) return;
  ctx.setShape(0, [...data.slice(0, axis), ...indices, ...data.slice(axis + 1)]);
};

const gatherElements: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(1));

const gatherND: ShapeRule = (ctx) => {
  const data = ctx.shape(0);
  const indices = ctx.shape(1);
  const batchDims = ctx.attrs.int('batch_dims', 0);
  const last = indices?.[indices.length - 1];
  if (!data || !indices || typeof last !== 'number') return ctx.setShape(0, undefined);
  ctx.setShape(0, [...indices.slice(0, -1), ...data.slice(batchDims + last)]);
};

/** Pads: `paddings` (opset 1), `pads` attribute (opset 2–10), the `pads` input from opset 11. */
const pad: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x) return ctx.setShape(0, undefined);
  let pads: number[] | undefined;
  if (ctx.opset < 11) pads = ctx.attrs.has('pads') ? ctx.attrs.ints('pads') : ctx.attrs.ints('paddings', []);
  else pads = ctx.ints(1);
  let axes = x.map((_, i) => i);
  if (ctx.hasInput(3)) {
    const given = ctx.ints(3);
    const norm = given && normalizeAxes(given, x.length);
    if (!norm) return ctx.setShape(0, x.map(() => undefined));
    axes = norm;
  }
  if (!pads || pads.length !== 2 * axes.length) return ctx.setShape(0, x.map(() => undefined));
  const out = [...x];
  axes.forEach((axis, k) => {
    const total = pads[k] + pads[k + axes.length];
    out[axis] = total === 0 ? x[axis] : mapDim(x[axis], (d) => d + total);
  });
  ctx.setShape(0, out);
};

export const indexingRules: Record<string, ShapeRule> = {
  Concat: concat,
  Split: split,
  Slice: slice,
  Gather: gather,
  GatherElements: gatherElements,
  GatherND: gatherND,
  Pad: pad,
};
