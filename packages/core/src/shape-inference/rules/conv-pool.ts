/**
 * Sliding-window ops (Conv, ConvTranspose, pooling) and their relatives (global pooling, RoI pooling,
 * MaxUnpool, GridSample). Spatial sizes follow the ONNX formulas for pads, strides, dilations,
 * auto_pad and ceil_mode; a symbolic spatial dim gives a derived symbol (derived-dims.ts): itself where the
 * window maps it onto itself, else a name spelling the formula.
 */
import type { InferContext, ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { ceilWindowDim, sameDim, scaledDim, transposedDim, windowDim } from '../derived-dims.js';

interface Window {
  kernel: number[];
  strides: number[];
  dilations: number[];
  /** Begin pads for every spatial axis, then end pads. */
  pads: number[];
  autoPad: string;
}

function readWindow(ctx: InferContext, spatial: number, kernel: number[]): Window | undefined {
  if (kernel.length !== spatial) return undefined;
  const ones = Array<number>(spatial).fill(1);
  const strides = ctx.attrs.ints('strides', ones);
  const dilations = ctx.attrs.ints('dilations', ones);
  const pads = ctx.attrs.ints('pads', Array<number>(2 * spatial).fill(0));
  if (strides.length !== spatial || dilations.length !== spatial || pads.length !== 2 * spatial) return undefined;
  if (strides.some((s) => s < 1) || dilations.some((d) => d < 1)) return undefined;
  return { kernel, strides, dilations, pads, autoPad: ctx.attrs.string('auto_pad', 'NOTSET') };
}

/** Output size of one spatial axis of a convolution or pooling window. */
export function windowOutputDim(input: Dim, w: Window, axis: number, ceilMode = false): Dim {
  const spatial = w.kernel.length;
  const k = w.kernel[axis];
  const s = w.strides[axis];
  const effKernel = (k - 1) * w.dilations[axis] + 1;
  if (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER') {
    if (typeof input === 'number') return Math.ceil(input / s);
    return input === undefined ? undefined : sameDim(input, s);
  }
  const padTotal = w.autoPad === 'VALID' ? 0 : w.pads[axis] + w.pads[axis + spatial];
  if (input === undefined) return undefined;
  if (typeof input !== 'number') {
    return ceilMode ? ceilWindowDim(input, w.pads[axis], padTotal, effKernel, s) : windowDim(input, padTotal, effKernel, s);
  }
  const span = input + padTotal - effKernel;
  if (span < 0) return undefined;
  if (!ceilMode) return Math.floor(span / s) + 1;
  let out = Math.ceil(span / s) + 1;
  // The last window must start inside the input or its begin padding (PyTorch and onnxruntime agree).
  if ((out - 1) * s >= input + w.pads[axis]) out--;
  return out;
}

/** Conv, ConvInteger, QLinearConv: `[N, M, ...spatial]` with M from the weight. */
function convLike(xIndex: number, wIndex: number): ShapeRule {
  return (ctx) => {
    const x = ctx.shape(xIndex);
    const wShape = ctx.shape(wIndex);
    const rank = x?.length ?? wShape?.length;
    if (rank === undefined || rank < 3) return ctx.setShape(0, undefined);
    const spatial = rank - 2;
    const fromWeight = wShape?.slice(2);
    const kernel = ctx.attrs.ints('kernel_shape', fromWeight?.every((d) => typeof d === 'number') ? (fromWeight as number[]) : []);
    const w = readWindow(ctx, spatial, kernel);
    const out: Dim[] = [x?.[0], wShape?.[0]];
    for (let a = 0; a < spatial; a++) out.push(w && x ? windowOutputDim(x[a + 2], w, a) : undefined);
    ctx.setShape(0, out);
  };
}

const convTranspose: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const wShape = ctx.shape(1);
  const rank = x?.length ?? wShape?.length;
  if (rank === undefined || rank < 3) return ctx.setShape(0, undefined);
  const spatial = rank - 2;
  const group = ctx.attrs.int('group', 1);
  const m = wShape?.[1];
  const out: Dim[] = [x?.[0], typeof m === 'number' ? m * group : undefined];
  const outputShape = ctx.attrs.ints('output_shape', []);
  if (outputShape.length >= spatial) {
    out.push(...outputShape.slice(outputShape.length - spatial));
    return ctx.setShape(0, out);
  }
  const fromWeight = wShape?.slice(2);
  const kernel = ctx.attrs.ints('kernel_shape', fromWeight?.every((d) => typeof d === 'number') ? (fromWeight as number[]) : []);
  const w = readWindow(ctx, spatial, kernel);
  const outputPadding = ctx.attrs.ints('output_padding', Array<number>(spatial).fill(0));
  for (let a = 0; a < spatial; a++) {
    const d = x?.[a + 2];
    if (!w || d === undefined) {
      out.push(undefined);
      continue;
    }
    if (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER') {
      out.push(typeof d === 'number' ? d * w.strides[a] : scaledDim(d, w.strides[a]));
      continue;
    }
    const padTotal = w.autoPad === 'VALID' ? 0 : w.pads[a] + w.pads[a + spatial];
    const effKernel = (w.kernel[a] - 1) * w.dilations[a] + 1;
    const outPad = outputPadding[a] ?? 0;
    out.push(typeof d === 'number' ? w.strides[a] * (d - 1) + outPad + effKernel - padTotal : transposedDim(d, w.strides[a], outPad, effKernel, padTotal));
  }
  ctx.setShape(0, out);
};

/** AveragePool, MaxPool, LpPool: `[N, C, ...spatial]`; MaxPool's Indices share the shape. */
const pool: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x || x.length < 3) return;
  const spatial = x.length - 2;
  const w = readWindow(ctx, spatial, ctx.attrs.ints('kernel_shape', []));
  const ceilMode = ctx.attrs.int('ceil_mode', 0) === 1;
  const out: Dim[] = [x[0], x[1]];
  for (let a = 0; a < spatial; a++) out.push(w ? windowOutputDim(x[a + 2], w, a, ceilMode) : undefined);
  ctx.setShape(0, out);
  if (ctx.hasOutput(1)) ctx.setShape(1, [...out], 'int64');
};

const globalPool: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  ctx.setShape(0, x && x.length >= 2 ? [x[0], x[1], ...x.slice(2).map(() => 1)] : undefined);
};

const maxRoiPool: ShapeRule = (ctx) => {
  const pooled = ctx.attrs.ints('pooled_shape', []);
  ctx.setShape(0, [ctx.shape(1)?.[0], ctx.shape(0)?.[1], ...pooled]);
};

const roiAlign: ShapeRule = (ctx) => {
  const rois = ctx.shape(1)?.[0] ?? ctx.shape(2)?.[0];
  const h = ctx.attrs.int('output_height', 1);
  const w = ctx.attrs.int('output_width', 1);
  ctx.setShape(0, [rois, ctx.shape(0)?.[1], h, w]);
};

const maxUnpool: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x || x.length < 3) return;
  if (ctx.hasInput(2)) {
    const explicit = ctx.ints(2);
    return ctx.setShape(0, explicit ?? [x[0], x[1], ...x.slice(2).map(() => undefined)]);
  }
  const spatial = x.length - 2;
  const w = readWindow(ctx, spatial, ctx.attrs.ints('kernel_shape', []));
  const out: Dim[] = [x[0], x[1]];
  for (let a = 0; a < spatial; a++) {
    const d = x[a + 2];
    out.push(w && typeof d === 'number' ? (d - 1) * w.strides[a] + w.kernel[a] - w.pads[a] - w.pads[a + spatial] : undefined);
  }
  ctx.setShape(0, out);
};

/** GridSample: `[N, C, H_out, W_out]` with the output grid taken from `grid` `[N, H_out, W_out, 2]`. */
const gridSample: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const grid = ctx.shape(1);
  if (!x && !grid) return ctx.setShape(0, undefined, ctx.elemType(0));
  const rank = grid?.length ?? x?.length ?? 4;
  const outSpatial = grid ? grid.slice(1, -1) : Array<Dim>(rank - 2).fill(undefined);
  // Y has X's type (the onnx 1.12 schema mislabels it with grid's constraint).
  ctx.setShape(0, [x?.[0] ?? grid?.[0], x?.[1], ...outSpatial], ctx.elemType(0));
};

export const convPoolRules: Record<string, ShapeRule> = {
  Conv: convLike(0, 1),
  ConvInteger: convLike(0, 1),
  QLinearConv: convLike(0, 3),
  ConvTranspose: convTranspose,
  AveragePool: pool,
  MaxPool: pool,
  LpPool: pool,
  GlobalAveragePool: globalPool,
  GlobalMaxPool: globalPool,
  GlobalLpPool: globalPool,
  MaxRoiPool: maxRoiPool,
  RoiAlign: roiAlign,
  MaxUnpool: maxUnpool,
  GridSample: gridSample,
};
