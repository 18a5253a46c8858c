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

export const nonZeroKernel = tensorKernel({
  opType: 'NonZero',
  sinceVersion: 9,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      checkMovable(x, 'NonZero');
      const test = isNonZero(x);
      const hits: number[] = [];
      for (let i = 0; i < x.size; i++) if (test(i)) hits.push(i);
      const r = x.dims.length;
      const out = ctx.output(0, 'int64', [r, hits.length]);
      const s = rowMajorStrides(x.dims);
      const n = hits.length;
      for (let h = 0; h < n; h++) {
        let rem = hits[h];
        for (let k = 0; k < r; k++) {
          const c = Math.floor(rem / s[k]);
          rem -= c * s[k];
          out.data[k * n + h] = BigInt(c);
        }
      }
      return [out];
    },
  }),
});
