/**
 * TopK: the k largest (or smallest) values along `axis` with their int64 indices, always sorted;
 * equal values keep the lower index first. K is an attribute before opset 10, an input after.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { NUMERIC_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { compareKeys, sortKeys, type Key } from '../tensor-ops/compare.js';
import { normalizeAxis, product, readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** The positions (within the lane) of the top k of `lane`, best first. */
export function topIndices(lane: readonly Key[], k: number, largest: boolean): number[] {
  const better = (i: number, j: number): boolean => {
    const c = compareKeys(lane[i], lane[j]);
    return c === 0 ? i < j : largest ? c > 0 : c < 0;
  };
  const n = lane.length;
  if (k * 8 < n) {
    // Few wanted from many: keep a sorted buffer of the best k.
    const best: number[] = [];
    for (let i = 0; i < n; i++) {
      if (best.length === k && !better(i, best[k - 1])) continue;
      let lo = 0;
      let hi = best.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (better(best[mid], i)) lo = mid + 1;
        else hi = mid;
      }
      best.splice(lo, 0, i);
      if (best.length > k) best.pop();
    }
    return best;
  }
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((i, j) => (better(i, j) ? -1 : better(j, i) ? 1 : 0));
  return order.slice(0, k);
}

export const topKKernel = tensorKernel({
  opType: 'TopK',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC_TYPES },
  create({ attrs, opset }) {
    const axisAttr = attrs.int('axis', -1);
    const largest = attrs.int('largest', 1) !== 0;
    const kAttr = opset < 10 ? attrs.int('k') : undefined;
    return {
      run(ctx) {
        const x: Tensor = ctx.input(0);
        checkMovable(x, 'TopK');
        const axis = normalizeAxis(axisAttr, x.dims.length, 'TopK');
        const k = kAttr ?? readScalarInt(ctx.input(1), 'TopK K');
        const n = x.dims[axis];
        if (k < 0 || k > n) throw new SwitchyardError('INVALID_SHAPE', `TopK: k = ${k} is outside [0, ${n}] for axis ${axis}`);
        const dims = [...x.dims];
        dims[axis] = k;
        const values = allocOutput(ctx, 0, x.type, dims);
        const indices = allocOutput(ctx, 1, 'int64', dims);
        const keys = sortKeys(x);
        const outer = product(x.dims, 0, axis);
        const inner = product(x.dims, axis + 1);
        const lane = new Array<Key>(n);
        for (let o = 0; o < outer; o++) {
          for (let j = 0; j < inner; j++) {
            const base = o * n * inner + j;
            for (let i = 0; i < n; i++) lane[i] = keys[base + i * inner];
            const top = topIndices(lane, k, largest);
            for (let t = 0; t < k; t++) {
              const at = (o * k + t) * inner + j;
              values.data[at] = x.data[base + top[t] * inner];
              indices.data[at] = BigInt(top[t]);
            }
          }
        }
        return [values, indices];
      },
    };
  },
});
