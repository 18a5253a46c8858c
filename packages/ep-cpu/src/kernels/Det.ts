/** Det: determinant of each trailing M×M matrix of [*, M, M], by LU decomposition with partial pivoting. */
import { SwitchyardError } from '@switchyard/core';
import { floatData, floatOutput } from '../nn/float-io.js';
import { tensorKernel } from '../tensor-ops/define.js';

/** Determinant of the n×n matrix at `a[offset…]` (row-major), computed in doubles on a scratch copy. */
export function determinant(a: ArrayLike<number>, offset: number, n: number, scratch: Float64Array): number {
  for (let i = 0; i < n * n; i++) scratch[i] = a[offset + i];
  let det = 1;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(scratch[r * n + col]) > Math.abs(scratch[pivot * n + col])) pivot = r;
    const p = scratch[pivot * n + col];
    if (p === 0) return 0;
    if (pivot !== col) {
      for (let c = 0; c < n; c++) {
        const t = scratch[col * n + c];
        scratch[col * n + c] = scratch[pivot * n + c];
        scratch[pivot * n + c] = t;
      }
      det = -det;
    }
    det *= p;
    for (let r = col + 1; r < n; r++) {
      const f = scratch[r * n + col] / p;
      if (f === 0) continue;
      for (let c = col + 1; c < n; c++) scratch[r * n + c] -= f * scratch[col * n + c];
    }
  }
  return det;
}

export const detKernel = tensorKernel({
  opType: 'Det',
  sinceVersion: 11,
  typeConstraints: { T: ['float32', 'float64', 'float16'] },
  create() {
    return {
      run(ctx) {
        const x = ctx.input(0);
        const r = x.dims.length;
        if (r < 2 || x.dims[r - 1] !== x.dims[r - 2]) {
          throw new SwitchyardError('INVALID_SHAPE', `Det: input must be [*, M, M], got [${x.dims.join(', ')}]`);
        }
        const n = x.dims[r - 1];
        const data = floatData(x, 'Det input');
        const out = floatOutput(ctx, 0, x.type, x.dims.slice(0, r - 2));
        const scratch = new Float64Array(n * n);
        for (let m = 0; m < out.data.length; m++) out.data[m] = determinant(data, m * n * n, n, scratch);
        return [out.commit()];
      },
    };
  },
});
