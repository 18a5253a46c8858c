/**
 * Unique: distinct elements (or slices along `axis`), sorted or in first-seen order, with
 * first-occurrence indices, inverse indices and counts (all int64).
 */
import { type KernelRunContext, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { compareKeys, sortKeys, type Key } from '../tensor-ops/compare.js';
import { normalizeAxis, product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

interface Group {
  first: number;
  count: number;
  slice: Key[];
}

/** Unique's outputs from groupScalars' grouping of a 1-element-slice tensor. */
function writeScalarResults(ctx: KernelRunContext, x: Tensor, dims: readonly number[], axis: number, groups: ReturnType<typeof groupScalars>): Tensor[] {
  const { order, first, counts, inverse } = groups;
  const u = order.length;
  const yDims = [...dims];
  yDims[axis] = u;
  const y = allocOutput(ctx, 0, x.type, yDims);
  for (let r = 0; r < u; r++) y.data[r] = x.data[first[order[r]]];
  const results: Tensor[] = [y];
  const wanted = ctx.node.outputs.length;
  if (wanted > 1) {
    const idx = allocOutput(ctx, 1, 'int64', [u]);
    for (let r = 0; r < u; r++) idx.data[r] = BigInt(first[order[r]]);
    results.push(idx);
  }
  if (wanted > 2) {
    const rank = new Int32Array(u);
    for (let r = 0; r < u; r++) rank[order[r]] = r;
    const inv = allocOutput(ctx, 2, 'int64', [inverse.length]);
    for (let i = 0; i < inverse.length; i++) inv.data[i] = BigInt(rank[inverse[i]]);
    results.push(inv);
  }
  if (wanted > 3) {
    const c = allocOutput(ctx, 3, 'int64', [u]);
    for (let r = 0; r < u; r++) c.data[r] = BigInt(counts[order[r]]);
    results.push(c);
  }
  return results;
}

function compareSlices(a: Key[], b: Key[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareKeys(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/** A map key for a slice: Map's SameValueZero already equates 0/-0 and NaN/NaN for single numbers. */
function sliceKey(s: Key[]): Key {
  if (s.length === 1) return s[0];
  return s.map((v) => (typeof v === 'string' ? JSON.stringify(v) : `${typeof v}:${Object.is(v, -0) ? 0 : String(v)}`)).join('|');
}

/**
 * The elements as numbers when they all are (any numeric dtype; int64/uint64 only within ±2^53, where
 * Number is exact); undefined for strings and larger 64-bit values, which take the generic path.
 */
function numericKeys(keys: ArrayLike<Key>): ArrayLike<number> | undefined {
  if (Array.isArray(keys)) return undefined;
  if (!(keys instanceof BigInt64Array || keys instanceof BigUint64Array)) return keys as ArrayLike<number>;
  const out = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = keys[i];
    if (v > 9007199254740991n || v < -9007199254740991n) return undefined;
    out[i] = Number(v);
  }
  return out;
}

/**
 * Unique over single numbers: one pass with a Map (SameValueZero, so 0/−0 and NaN/NaN group as
 * compareKeys equates them), then, when sorted, one native sort of the distinct values (NaN last, as
 * compareKeys). `order[r]` is the group at rank r; groups are numbered by first occurrence.
 */
function groupScalars(keys: ArrayLike<number>, sorted: boolean): { order: Int32Array; first: Int32Array; counts: Int32Array; inverse: Int32Array } {
  const n = keys.length;
  const groupOf = new Map<number, number>();
  const inverse = new Int32Array(n);
  let first = new Int32Array(16);
  let counts = new Int32Array(16);
  let u = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    let g = groupOf.get(k);
    if (g === undefined) {
      g = u++;
      groupOf.set(k, g);
      if (g === first.length) {
        const grownFirst = new Int32Array(2 * g);
        grownFirst.set(first);
        first = grownFirst;
        const grownCounts = new Int32Array(2 * g);
        grownCounts.set(counts);
        counts = grownCounts;
      }
      first[g] = i;
    }
    counts[g]++;
    inverse[i] = g;
  }
  const order = new Int32Array(u);
  if (sorted) {
    const values = new Float64Array(u);
    for (let g = 0; g < u; g++) values[g] = keys[first[g]];
    values.sort();
    for (let r = 0; r < u; r++) order[r] = groupOf.get(values[r]) as number;
  } else {
    for (let g = 0; g < u; g++) order[g] = g;
  }
  return { order, first: first.subarray(0, u), counts: counts.subarray(0, u), inverse };
}

export const uniqueKernel = tensorKernel({
  opType: 'Unique',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.has('axis') ? attrs.int('axis') : undefined;
    const sorted = attrs.int('sorted', 1) !== 0;
    return {
      run(ctx) {
        const x: Tensor = ctx.input(0);
        checkMovable(x, 'Unique');
        const dims = axisAttr === undefined ? [x.size] : x.dims;
        const axis = axisAttr === undefined ? 0 : normalizeAxis(axisAttr, x.dims.length, 'Unique');
        const n = dims[axis];
        const outer = product(dims, 0, axis);
        const inner = product(dims, axis + 1);
        const keys = sortKeys(x);
        const scalars = outer * inner === 1 ? numericKeys(keys) : undefined;
        if (scalars) return writeScalarResults(ctx, x, dims, axis, groupScalars(scalars, sorted));
        const groups: Group[] = [];
        const byKey = new Map<Key, number>();
        const inverse = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          const slice: Key[] = [];
          for (let o = 0; o < outer; o++) for (let j = 0; j < inner; j++) slice.push(keys[(o * n + i) * inner + j]);
          const key = sliceKey(slice);
          let g = byKey.get(key);
          if (g === undefined) {
            g = groups.length;
            byKey.set(key, g);
            groups.push({ first: i, count: 0, slice });
          }
          groups[g].count++;
          inverse[i] = g;
        }
        const order = groups.map((_, g) => g);
        if (sorted) order.sort((a, b) => compareSlices(groups[a].slice, groups[b].slice));
        const rank = new Array<number>(groups.length);
        order.forEach((g, r) => (rank[g] = r));
        const u = order.length;
        const yDims = [...dims];
        yDims[axis] = u;
        const y = allocOutput(ctx, 0, x.type, yDims);
        for (let o = 0; o < outer; o++) {
          order.forEach((g, r) => copyRun(x.data, (o * n + groups[g].first) * inner, y.data, (o * u + r) * inner, inner));
        }
        const results: Tensor[] = [y];
        const wanted = ctx.node.outputs.length;
        if (wanted > 1) {
          const idx = allocOutput(ctx, 1, 'int64', [u]);
          order.forEach((g, r) => (idx.data[r] = BigInt(groups[g].first)));
          results.push(idx);
        }
        if (wanted > 2) {
          const inv = allocOutput(ctx, 2, 'int64', [n]);
          for (let i = 0; i < n; i++) inv.data[i] = BigInt(rank[inverse[i]]);
          results.push(inv);
        }
        if (wanted > 3) {
          const counts = allocOutput(ctx, 3, 'int64', [u]);
          order.forEach((g, r) => (counts.data[r] = BigInt(groups[g].count)));
          results.push(counts);
        }
        return results;
      },
    };
  },
});
