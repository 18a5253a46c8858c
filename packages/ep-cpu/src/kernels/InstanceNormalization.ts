/** InstanceNormalization: per (N, C) plane, y = scale[c] · (x - mean) / sqrt(var + epsilon) + B[c]. */
import { SwitchyardError, defineKernel, elementCount, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { checkSize } from '../nn/norm-helpers.js';

export const instanceNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'InstanceNormalization',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    if (X.dims.length < 3) throw new SwitchyardError('INVALID_SHAPE', `InstanceNormalization: X must have rank ≥ 3, got [${X.dims.join(', ')}]`);
    const [N, C] = X.dims;
    const S = elementCount(X.dims.slice(2));
    const Scale = ctx.input(1);
    const B = ctx.input(2);
    checkSize('InstanceNormalization', 'scale', Scale.size, C);
    checkSize('InstanceNormalization', 'B', B.size, C);
    const eps = init.attrs.float('epsilon', 1e-5);
    const x = floatData(X);
    const scale = floatData(Scale);
    const bias = floatData(B);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    const out = y.data;
    for (let n = 0; n < N; n++) {
      for (let c = 0; c < C; c++) {
        const o = (n * C + c) * S;
        let sum = 0;
        for (let s = 0; s < S; s++) sum += x[o + s];
        const mean = sum / S;
        let sq = 0;
        for (let s = 0; s < S; s++) {
          const d = x[o + s] - mean;
          sq += d * d;
        }
        const a = scale[c] / Math.sqrt(sq / S + eps);
        const b = bias[c] - mean * a;
        for (let s = 0; s < S; s++) out[o + s] = x[o + s] * a + b;
      }
    }
    return [y.commit()];
  }),
});
