/**
 * Unique: distinct elements (or slices along `axis`), sorted or in first-seen order, with
 * first-occurrence indices, inverse indices and counts (all int64).
 */
import { type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { compareKeys, sortKeys, type Key } from '../tensor-ops/compare.js';
import { normalizeAxis, product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

interface Group {
  first: number;
  count: number;
  slice: Key[];
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
