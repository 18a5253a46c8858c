/**
 * Numpy-style (multidirectional) broadcasting, shared by every kernel that combines tensors of
 * different shapes.
 *
 * `broadcastShape` computes the output shape. `broadcastPlan` turns a set of input shapes into a
 * loop plan: the output is walked as `outer` rows of `inner` contiguous elements, and for each row
 * `r` input `k` starts at `offsets[k][r]` and advances by `innerStrides[k]` (1, or 0 when that input is
 * broadcast along the innermost run). Adjacent dimensions that broadcast the same way are merged first,
 * so `[N,C,H,W] + [1,C,1,1]` becomes rows of `H·W` with a stride-0 operand, and equal shapes become a
 * single row: kernels then need only a tight inner loop.
 */
import { SwitchyardError, elementCount } from '@switchyard/core';

/** The broadcast shape of `shapes`, or an INVALID_SHAPE error naming the mismatch. */
export function broadcastShape(shapes: readonly (readonly number[])[], what = 'broadcast'): number[] {
  let rank = 0;
  for (const s of shapes) rank = Math.max(rank, s.length);
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    const pad = rank - s.length;
    for (let i = 0; i < s.length; i++) {
      const d = s[i];
      const o = out[pad + i];
      if (d === o || d === 1) continue;
      if (o === 1) out[pad + i] = d;
      else {
        throw new SwitchyardError(
          'INVALID_SHAPE',
          `${what}: shapes ${shapes.map((x) => `[${x.join(', ')}]`).join(' and ')} cannot be broadcast (dimension ${i - s.length} is ${d} vs ${o})`,
        );
      }
    }
  }
  return out;
}

export interface BroadcastPlan {
  /** The broadcast output shape (frozen: tensors made with it keep it without a copy). */
  dims: readonly number[];
  /** Output element count (`outer * inner`). */
  size: number;
  /** Number of rows. */
  outer: number;
  /** Contiguous output elements per row. */
  inner: number;
  /** Per input: the flat start offset of each row. */
  offsets: Int32Array[];
  /** Per input: step along the inner run, 1 or 0 (broadcast). */
  innerStrides: number[];
}

/**
 * Plans are immutable and kernels ask for the same shapes run after run, so recent plans are kept
 * instead of rebuilt per run. The key is a numeric hash of the dims, checked against the stored
 * shapes: building a string key (`dims.join`) cost more than the rest of a tiny op's kernel.
 */
interface CachedPlan {
  shapes: readonly (readonly number[])[];
  plan: BroadcastPlan;
}
const planCache = new Map<number, CachedPlan[]>();
let cachedPlans = 0;
const PLAN_CACHE_SIZE = 512;

function shapesHash(shapes: readonly (readonly number[])[]): number {
  let h = shapes.length;
  for (const s of shapes) {
    h = (Math.imul(h, 31) + s.length) | 0;
    for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s[i]) | 0;
  }
  return h;
}

function sameShapes(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    const y = b[k];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

/** Builds the loop plan for reading `shapes` broadcast to their common shape (see the file comment). */
export function broadcastPlan(shapes: readonly (readonly number[])[], what = 'broadcast'): BroadcastPlan {
  const h = shapesHash(shapes);
  const bucket = planCache.get(h);
  if (bucket) {
    for (const e of bucket) if (sameShapes(e.shapes, shapes)) return e.plan;
  }
  const plan = buildBroadcastPlan(shapes, what);
  if (cachedPlans >= PLAN_CACHE_SIZE) {
    planCache.clear();
    cachedPlans = 0;
  }
  const entry = { shapes: shapes.map((s) => s.slice()), plan };
  const list = planCache.get(h);
  if (list) list.push(entry);
  else planCache.set(h, [entry]);
  cachedPlans++;
  return plan;
}

function buildBroadcastPlan(shapes: readonly (readonly number[])[], what: string): BroadcastPlan {
  const dims = broadcastShape(shapes, what);
  const size = elementCount(dims, what);
  const rank = dims.length;
  const k = shapes.length;

  // Per input, per output axis: its element stride, or 0 when broadcast along that axis.
  const strides = shapes.map((s) => {
    const st = new Array<number>(rank).fill(0);
    let acc = 1;
    for (let i = s.length - 1; i >= 0; i--) {
      const axis = rank - s.length + i;
      st[axis] = s[i] === 1 && dims[axis] !== 1 ? 0 : acc;
      acc *= s[i];
    }
    return st;
  });

  // Merge adjacent axes (dropping size-1 ones) while every input is contiguous across the pair.
  const mDims: number[] = [];
  const mStrides: number[][] = shapes.map(() => []);
  for (let axis = 0; axis < rank; axis++) {
    const d = dims[axis];
    if (d === 1) continue;
    const last = mDims.length - 1;
    const mergeable =
      last >= 0 && strides.every((st, j) => mStrides[j][last] === st[axis] * d);
    if (mergeable) {
      mDims[last] *= d;
      for (let j = 0; j < k; j++) mStrides[j][last] = strides[j][axis];
    } else {
      mDims.push(d);
      for (let j = 0; j < k; j++) mStrides[j].push(strides[j][axis]);
    }
  }

  const m = mDims.length;
  const inner = m === 0 ? 1 : mDims[m - 1];
  const innerStrides = mStrides.map((st) => (m === 0 ? 0 : st[m - 1]));
  const outer = size === 0 ? 0 : size / inner;
  const offsets = shapes.map(() => new Int32Array(outer));
  if (outer > 0) {
    // Odometer over the outer axes, accumulating each input's offset incrementally.
    const counter = new Array<number>(Math.max(0, m - 1)).fill(0);
    const cur = new Array<number>(k).fill(0);
    for (let r = 0; r < outer; r++) {
      for (let j = 0; j < k; j++) offsets[j][r] = cur[j];
      for (let axis = m - 2; axis >= 0; axis--) {
        counter[axis]++;
        for (let j = 0; j < k; j++) cur[j] += mStrides[j][axis];
        if (counter[axis] < mDims[axis]) break;
        for (let j = 0; j < k; j++) cur[j] -= mStrides[j][axis] * mDims[axis];
        counter[axis] = 0;
      }
    }
  }
  return { dims: Object.freeze(dims), size, outer, inner, offsets, innerStrides };
}

/**
 * For each output element of broadcasting `from` to `to`, the flat index of the input element it reads.
 * Convenient for kernels (e.g. Expand, Where on strings) that copy rather than compute.
 */
export function broadcastIndex(from: readonly number[], to: readonly number[], what = 'broadcast'): Int32Array {
  const plan = broadcastPlan([to, from], what);
  if (plan.dims.length !== to.length || plan.dims.some((d, i) => d !== to[i])) {
    throw new SwitchyardError('INVALID_SHAPE', `${what}: [${from.join(', ')}] does not broadcast to [${to.join(', ')}]`);
  }
  const out = new Int32Array(plan.size);
  const off = plan.offsets[1];
  const st = plan.innerStrides[1];
  let o = 0;
  for (let r = 0; r < plan.outer; r++) for (let j = 0; j < plan.inner; j++) out[o++] = off[r] + j * st;
  return out;
}
