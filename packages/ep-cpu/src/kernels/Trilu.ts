/** Trilu: keeps the upper (j − i ≥ k) or lower (j − i ≤ k) triangle of each trailing matrix, zeroes the rest. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun, fillRun, zeroOf } from '../tensor-ops/elements.js';
import { readScalarInt } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const triluKernel = tensorKernel({
  opType: 'Trilu',
  sinceVersion: 14,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const upper = attrs.int('upper', 1) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'Trilu');
        const r = x.dims.length;
        if (r < 2) throw new SwitchyardError('INVALID_SHAPE', `Trilu: input rank must be ≥ 2, got ${r}`);
        const kT = ctx.optionalInput(1);
        const k = kT ? readScalarInt(kT, 'Trilu k', { clamp: true }) : 0;
        const out = allocOutput(ctx, 0, x.type, x.dims);
        const [N, M] = [x.dims[r - 2], x.dims[r - 1]];
        const zero = zeroOf(x.type);
        const mats = N * M === 0 ? 0 : x.size / (N * M);
        for (let m = 0; m < mats; m++) {
          for (let i = 0; i < N; i++) {
            const row = (m * N + i) * M;
            // Kept columns: upper → j ≥ i + k; lower → j ≤ i + k.
            const edge = Math.min(Math.max(upper ? i + k : i + k + 1, 0), M);
            const [keepFrom, keepTo] = upper ? [edge, M] : [0, edge];
            fillRun(out.data, row, keepFrom, zero);
            copyRun(x.data, row + keepFrom, out.data, row + keepFrom, keepTo - keepFrom);
            fillRun(out.data, row + keepTo, M - keepTo, zero);
          }
        }
        return [out];
      },
    };
  },
});
