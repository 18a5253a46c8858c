/**
 * GroupNormalization: the C channels of X [N, C, ...] split into num_groups groups; each (n, group) is
 * normalized by its own mean and variance, then scaled and shifted. Opset 18–20 take scale and bias per
 * group ([num_groups]); opset 21 per channel ([C]). Statistics in float64 whatever stash_type says.
 */
import { SwitchyardError, defineKernel, elementCount, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { checkSize } from '../nn/norm-helpers.js';

export const groupNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'GroupNormalization',
  sinceVersion: 18,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    if (X.dims.length < 2) throw new SwitchyardError('INVALID_SHAPE', `GroupNormalization: X must have rank ≥ 2, got [${X.dims.join(', ')}]`);
    const groups = init.attrs.int('num_groups');
    const eps = init.attrs.float('epsilon', 1e-5);
    const [N, C] = X.dims;
    if (!(groups >= 1) || C % groups !== 0) throw new SwitchyardError('INVALID_SHAPE', `GroupNormalization: ${C} channels do not split into ${groups} groups`);
    const perChannel = init.opset >= 21;
    const Scale = ctx.input(1);
    const B = ctx.input(2);
    checkSize('GroupNormalization', 'scale', Scale.size, perChannel ? C : groups);
    checkSize('GroupNormalization', 'bias', B.size, perChannel ? C : groups);
    const S = elementCount(X.dims.slice(2));
    const channelsPerGroup = C / groups;
    const count = channelsPerGroup * S;
    const x = floatData(X);
    const scale = floatData(Scale);
    const bias = floatData(B);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    const out = y.data;
    for (let n = 0; n < N; n++) {
      for (let g = 0; g < groups; g++) {
        const o = (n * groups + g) * count;
        let sum = 0;
        for (let i = 0; i < count; i++) sum += x[o + i];
        const mean = sum / count;
        let sq = 0;
        for (let i = 0; i < count; i++) {
          const d = x[o + i] - mean;
          sq += d * d;
        }
        const inv = 1 / Math.sqrt(sq / count + eps);
        for (let c = 0; c < channelsPerGroup; c++) {
          const p = perChannel ? g * channelsPerGroup + c : g;
          const a = scale[p] * inv;
          const b = bias[p] - mean * a;
          const base = o + c * S;
          for (let s = 0; s < S; s++) out[base + s] = x[base + s] * a + b;
        }
      }
    }
    return [y.commit()];
  }),
});
