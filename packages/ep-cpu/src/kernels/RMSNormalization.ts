/**
 * RMSNormalization (opset 23): Y = X / sqrt(mean(X², over dims [axis, rank)) + epsilon) · Scale, with
 * Scale broadcast to the normalized dims. Y has Scale's type (V), which may differ from X's (T).
 * The mean square is accumulated in float64 whatever stash_type says (at least as precise as float32).
 * The RMSNorm fusion (fusions/rms-norm-fusion.ts) writes the same op in com.switchyard for models of
 * opsets before 23: same contract, same kernel.
 */
import { SwitchyardError, defineKernel, elementCount, nodeLabel, simpleKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { floatData, floatOutput, normalizeAxis } from '../nn/float-io.js';
import { broadcastIndex } from '../nn/norm-helpers.js';
import { FUSED_DOMAIN } from './FusedMatMul.js';

const createRmsNormalization = simpleKernel((ctx, init) => {
  const X = ctx.input(0);
  const Scale = ctx.input(1);
  const rank = X.dims.length;
  if (rank === 0) throw new SwitchyardError('INVALID_SHAPE', `node '${nodeLabel(init.node)}' (RMSNormalization): X must have rank >= 1`);
  const axis = normalizeAxis(init.attrs.int('axis', -1), rank, 'RMSNormalization');
  const eps = init.attrs.float('epsilon', 1e-5);
  const normDims = X.dims.slice(axis);
  const outer = elementCount(X.dims.slice(0, axis));
  const inner = elementCount(normDims);
  // Scale usually spans the normalized dims; one of higher rank broadcasts against all of X.
  const perRow = Scale.dims.length <= normDims.length;
  const sIdx = broadcastIndex('RMSNormalization', 'scale', Scale.dims, perRow ? normDims : X.dims);
  const x = floatData(X, 'RMSNormalization X');
  const scale = floatData(Scale, 'RMSNormalization scale');
  const y = floatOutput(ctx, 0, Scale.type, X.dims);
  const out = y.data;
  for (let o = 0; o < outer; o++) {
    const base = o * inner;
    let sq = 0;
    for (let i = 0; i < inner; i++) sq += x[base + i] * x[base + i];
    const inv = 1 / Math.sqrt(sq / inner + eps);
    const sBase = perRow ? 0 : base;
    if (sIdx) for (let i = 0; i < inner; i++) out[base + i] = x[base + i] * inv * scale[sIdx[sBase + i]];
    else for (let i = 0; i < inner; i++) out[base + i] = x[base + i] * inv * scale[sBase + i];
  }
  return [y.commit()];
});

export const rmsNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'RMSNormalization',
  sinceVersion: 23,
  typeConstraints: { T: FLOATS, V: FLOATS },
  create: createRmsNormalization,
});

export const fusedRmsNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'RMSNormalization',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS, V: FLOATS },
  create: createRmsNormalization,
});
