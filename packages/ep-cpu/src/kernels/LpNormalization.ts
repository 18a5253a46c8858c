/** LpNormalization: x / ‖x‖_p along `axis` (p is 1 or 2); an all-zero slice stays zero. */
import { SwitchyardError, defineKernel, elementCount, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, normalizeAxis } from '../nn/float-io.js';

export const lpNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LpNormalization',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const p = init.attrs.int('p', 2);
    if (p !== 1 && p !== 2) throw new SwitchyardError('INVALID_ARGUMENT', `LpNormalization: p must be 1 or 2, got ${p}`);
    const axis = normalizeAxis(init.attrs.int('axis', -1), X.dims.length, 'LpNormalization');
    const outer = elementCount(X.dims.slice(0, axis));
    const len = X.dims[axis];
    const inner = elementCount(X.dims.slice(axis + 1));
    const x = floatData(X);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        const base = o * len * inner + i;
        let norm = 0;
        for (let k = 0; k < len; k++) {
          const v = x[base + k * inner];
          norm += p === 1 ? Math.abs(v) : v * v;
        }
        if (p === 2) norm = Math.sqrt(norm);
        for (let k = 0; k < len; k++) y.data[base + k * inner] = norm === 0 ? 0 : x[base + k * inner] / norm;
      }
    }
    return [y.commit()];
  }),
});
