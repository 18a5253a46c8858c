/** NonZero: int64 [rank, count] coordinates of the non-zero elements, row-major order. */
import { type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, checkMovable } from '../tensor-ops/elements.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

function isNonZero(t: Tensor): (i: number) => boolean {
  const d = t.data;
  // Half-float bits: ±0 are the only zeros.
  if (t.type === 'float16' || t.type === 'bfloat16') return (i) => ((d[i] as number) & 0x7fff) !== 0;
  if (t.type === 'string') return (i) => d[i] !== '';
  return (i) => d[i] != 0; // eslint-disable-line eqeqeq -- 0n and 0 both count as zero
}

/**
 * Flat positions of the non-zero elements, in order: for numeric storage two typed passes (count, then fill:
 * pushing onto a JS array cost ~20 ns an element at 10^5 hits), the generic test otherwise.
 */
function nonZeroPositions(x: Tensor): ArrayLike<number> {
  const d = x.data;
  if (ArrayBuffer.isView(d) && !(d instanceof BigInt64Array) && !(d instanceof BigUint64Array) && x.type !== 'float16' && x.type !== 'bfloat16') {
    const v = d as unknown as ArrayLike<number>;
    let count = 0;
    for (let i = 0; i < v.length; i++) if (v[i] !== 0) count++; // NaN counts: it is not zero
    const hits = new Float64Array(count);
    for (let i = 0, k = 0; k < count; i++) if (v[i] !== 0) hits[k++] = i;
    return hits;
  }
  const test = isNonZero(x);
  const hits: number[] = [];
  for (let i = 0; i < x.size; i++) if (test(i)) hits.push(i);
  return hits;
}

export const nonZeroKernel = tensorKernel({
  opType: 'NonZero',
  sinceVersion: 9,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      checkMovable(x, 'NonZero');
      const hits = nonZeroPositions(x);
      const r = x.dims.length;
      const out = ctx.output(0, 'int64', [r, hits.length]);
      const s = rowMajorStrides(x.dims);
      const n = hits.length;
      // Coordinates below 2^31 (every dim of a tensor in memory) written as two 32-bit words of the int64
      // output (little-endian): a BigInt per coordinate cost ~20x the scan.
      const words = new Int32Array(out.data.buffer, out.data.byteOffset, 2 * out.size);
      for (let h = 0; h < n; h++) {
        let rem = hits[h];
        for (let k = 0; k < r; k++) {
          const c = Math.floor(rem / s[k]);
          rem -= c * s[k];
          words[2 * (k * n + h)] = c;
          words[2 * (k * n + h) + 1] = 0;
        }
      }
      return [out];
    },
  }),
});
