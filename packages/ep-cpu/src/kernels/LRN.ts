/**
 * LRN: y = x / (bias + alpha / size · Σ x²)^beta, the sum over channels
 * [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the valid range.
 */
import { SwitchyardError, defineKernel, elementCount, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';

export const lrnKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LRN',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    if (X.dims.length < 2) throw new SwitchyardError('INVALID_SHAPE', `LRN: X must have rank ≥ 2, got [${X.dims.join(', ')}]`);
    const size = init.attrs.int('size');
    if (!(size >= 1)) throw new SwitchyardError('INVALID_ARGUMENT', `LRN: size must be ≥ 1, got ${size}`);
    const alpha = init.attrs.float('alpha', 1e-4);
    const beta = init.attrs.float('beta', 0.75);
    const bias = init.attrs.float('bias', 1);
    const [N, C] = X.dims;
    const S = elementCount(X.dims.slice(2));
    const before = Math.floor((size - 1) / 2);
    const after = Math.ceil((size - 1) / 2);
    const x = floatData(X);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    const out = y.data;
    const k = alpha / size;
    // Whole channel rows at a time (contiguous), each window's squares still added in channel order.
    const sq = new Float64Array(S);
    for (let n = 0; n < N; n++) {
      for (let c = 0; c < C; c++) {
        const c0 = Math.max(0, c - before);
        const c1 = Math.min(C - 1, c + after);
        sq.fill(0);
        for (let cc = c0; cc <= c1; cc++) {
          const row = (n * C + cc) * S;
          for (let s = 0; s < S; s++) {
            const v = x[row + s];
            sq[s] += v * v;
          }
        }
        const o = (n * C + c) * S;
        for (let s = 0; s < S; s++) out[o + s] = x[o + s] / (bias + k * sq[s]) ** beta;
      }
    }
    return [y.commit()];
  }),
});
