/** Slice: opset 1–9 attributes, 10+ inputs; negative steps; starts/ends clamped as the spec says. */
import { SwitchyardError, type KernelInit, type KernelRunContext, type Tensor } from '@switchyard/core';
import { allocOutput, checkMovable, TENSOR_TYPES, INDEX_TYPES } from '../tensor-ops/elements.js';
import { normalizeAxes, readInts } from '../tensor-ops/indices.js';
import { copyStrided, rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export interface SliceSpec {
  starts: readonly number[];
  ends: readonly number[];
  axes?: readonly number[];
  steps?: readonly number[];
}

/** The first index, step and length along each axis. */
export function sliceRanges(dims: readonly number[], spec: SliceSpec): { start: number[]; step: number[]; count: number[] } {
  const r = dims.length;
  const n = spec.starts.length;
  if (spec.ends.length !== n || (spec.axes && spec.axes.length !== n) || (spec.steps && spec.steps.length !== n)) {
    throw new SwitchyardError('INVALID_SHAPE', 'Slice: starts, ends, axes and steps must have the same length');
  }
  const axes = normalizeAxes(spec.axes ?? Array.from({ length: n }, (_, i) => i), r, 'Slice');
  const start = new Array<number>(r).fill(0);
  const step = new Array<number>(r).fill(1);
  const count = [...dims];
  axes.forEach((axis, i) => {
    const d = dims[axis];
    const st = spec.steps ? spec.steps[i] : 1;
    if (st === 0) throw new SwitchyardError('INVALID_SHAPE', 'Slice: step must not be 0');
    let s = spec.starts[i];
    let e = spec.ends[i];
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (st > 0) {
      s = Math.min(Math.max(s, 0), d);
      e = Math.min(Math.max(e, 0), d);
    } else {
      s = Math.min(Math.max(s, 0), d - 1);
      e = Math.min(Math.max(e, -1), d - 1);
    }
    start[axis] = s;
    step[axis] = st;
    count[axis] = Math.max(0, Math.ceil((e - s) / st));
  });
  return { start, step, count };
}

/** The slice as a strided view of x: the first element's offset, per-axis strides and the output dims. */
export function sliceView(dims: readonly number[], spec: SliceSpec): { offset: number; strides: number[]; dims: number[] } {
  const { start, step, count } = sliceRanges(dims, spec);
  const strides = rowMajorStrides(dims);
  let offset = 0;
  for (let i = 0; i < strides.length; i++) offset += start[i] * strides[i];
  return { offset, strides: strides.map((s, i) => s * step[i]), dims: count };
}

/** Opset 10+: starts, ends and the optional axes and steps from inputs 1–4 (`input(i)`: undefined where omitted). */
export function sliceSpecFrom(input: (i: number) => Tensor | undefined): SliceSpec {
  const opt = (i: number, what: string) => {
    const t = input(i);
    return t ? readInts(t, `Slice ${what}`, { clamp: true }) : undefined;
  };
  return { starts: opt(1, 'starts') ?? [], ends: opt(2, 'ends') ?? [], axes: opt(3, 'axes'), steps: opt(4, 'steps') };
}

export function sliceSpecFromInputs(ctx: KernelRunContext): SliceSpec {
  return sliceSpecFrom((i) => ctx.optionalInput(i));
}

/**
 * The spec of a Slice whose starts, ends, axes and steps are all constants (the common case: a model's
 * fixed crops and state splits), read once at session creation; undefined when any comes at run time.
 */
export function constantSliceSpec(init: KernelInit): SliceSpec | undefined {
  const { node, constantInputs } = init;
  for (let i = 1; i <= 4; i++) if (node.inputs[i] && !constantInputs.has(i)) return undefined;
  return sliceSpecFrom((i) => (node.inputs[i] ? constantInputs.get(i) : undefined));
}

/** sliceView for `spec`, remembering the last input dims' view: a stream of same-shaped runs computes it once. */
export function cachedSliceView(spec: SliceSpec): (dims: readonly number[]) => ReturnType<typeof sliceView> {
  let lastDims: readonly number[] | undefined;
  let last: ReturnType<typeof sliceView> | undefined;
  return (dims) => {
    if (last && lastDims && sameDims(lastDims, dims)) return last;
    last = sliceView(dims, spec);
    // Frozen: every run's output shares these dims instead of copying them.
    Object.freeze(last.dims);
    lastDims = [...dims];
    return last;
  };
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function slice(ctx: KernelRunContext, x: Tensor, spec: SliceSpec, viewOf = (dims: readonly number[]) => sliceView(dims, spec)): Tensor {
  checkMovable(x, 'Slice');
  const view = viewOf(x.dims);
  const out = allocOutput(ctx, 0, x.type, view.dims);
  if (out.size === 0) return out;
  copyStrided(x.data, view.offset, view.strides, view.dims, out.data);
  return out;
}

export const sliceV1Kernel = tensorKernel({
  opType: 'Slice',
  sinceVersion: 1,
  endVersion: 9,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const spec: SliceSpec = {
      starts: attrs.ints('starts'),
      ends: attrs.ints('ends'),
      axes: attrs.has('axes') ? attrs.ints('axes') : undefined,
    };
    return { run: (ctx) => [slice(ctx, ctx.input(0), spec)] };
  },
});

export const sliceKernel = tensorKernel({
  opType: 'Slice',
  sinceVersion: 10,
  typeConstraints: { T: TENSOR_TYPES, Tind: INDEX_TYPES },
  create: (init) => {
    const spec = constantSliceSpec(init);
    if (spec) {
      const viewOf = cachedSliceView(spec);
      return { run: (ctx) => [slice(ctx, ctx.input(0), spec, viewOf)] };
    }
    return { run: (ctx) => [slice(ctx, ctx.input(0), sliceSpecFromInputs(ctx))] };
  },
});
