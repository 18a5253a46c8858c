/**
 * BatchNormalization. Inference: y = (x - mean) / sqrt(var + epsilon) · scale + B per channel.
 * training_mode (opset 14+) normalizes with the batch statistics and also returns the updated running
 * mean/var. Opset < 9 `spatial = 0` takes per-activation parameters of shape [C, D1, ...].
 */
import { SwitchyardError, defineKernel, elementCount, simpleKernel, type KernelRunContext, type KernelInit, type Tensor } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';

function runBatchNorm(ctx: KernelRunContext, init: KernelInit) {
  const X = ctx.input(0);
  if (X.dims.length < 2) throw new SwitchyardError('INVALID_SHAPE', `BatchNormalization: X must have rank ≥ 2, got [${X.dims.join(', ')}]`);
  const eps = init.attrs.float('epsilon', 1e-5);
  const momentum = init.attrs.float('momentum', 0.9);
  const training = init.opset >= 14 && init.attrs.int('training_mode', 0) !== 0;
  const [N, C] = X.dims;
  const S = elementCount(X.dims.slice(2));
  const params = [1, 2, 3, 4].map((i) => ctx.input(i));
  // Per-channel ([C]) or, for spatial = 0, per-activation ([C, D1, ...]) parameters.
  const perActivation = params[0].size === C * S && S !== 1 && params[0].size !== C;
  const width = perActivation ? C * S : C;
  params.forEach((p: Tensor, i) => {
    if (p.size !== width) throw new SwitchyardError('INVALID_SHAPE', `BatchNormalization: input ${i + 1} has ${p.size} elements, expected ${width}`);
  });
  const [scale, bias, inMean, inVar] = params.map((p) => floatData(p));
  const x = floatData(X);
  const y = floatOutput(ctx, 0, X.type, X.dims);
  const out = y.data;
  let mean = inMean;
  let variance = inVar;
  if (training) {
    mean = new Float64Array(width);
    variance = new Float64Array(width);
    const count = perActivation ? N : N * S;
    for (let n = 0; n < N; n++)
      for (let c = 0; c < C; c++)
        for (let s = 0; s < S; s++) mean[perActivation ? c * S + s : c] += x[(n * C + c) * S + s];
    for (let i = 0; i < width; i++) mean[i] /= count;
    for (let n = 0; n < N; n++)
      for (let c = 0; c < C; c++)
        for (let s = 0; s < S; s++) {
          const k = perActivation ? c * S + s : c;
          const d = x[(n * C + c) * S + s] - mean[k];
          variance[k] += d * d;
        }
    for (let i = 0; i < width; i++) variance[i] /= count;
  }
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      const o = (n * C + c) * S;
      if (perActivation) {
        for (let s = 0; s < S; s++) {
          const k = c * S + s;
          out[o + s] = ((x[o + s] - mean[k]) / Math.sqrt(variance[k] + eps)) * scale[k] + bias[k];
        }
      } else {
        const a = scale[c] / Math.sqrt(variance[c] + eps);
        const b = bias[c] - mean[c] * a;
        for (let s = 0; s < S; s++) out[o + s] = x[o + s] * a + b;
      }
    }
  }
  const results: Array<Tensor | null> = [y.commit()];
  const outs = ctx.node.outputs;
  if (training) {
    const pType = params[2].type;
    for (const [slot, running, batch] of [[1, inMean, mean], [2, inVar, variance]] as const) {
      if (!outs[slot]) {
        results.push(null);
        continue;
      }
      const r = floatOutput(ctx, slot, pType, params[2].dims);
      for (let i = 0; i < width; i++) r.data[i] = running[i] * momentum + batch[i] * (1 - momentum);
      results.push(r.commit());
    }
  } else {
    // Pre-14 graphs may declare mean/var (and saved mean/var) outputs; in inference they are the inputs.
    for (let slot = 1; slot < outs.length; slot++) {
      if (!outs[slot]) {
        results.push(null);
        continue;
      }
      const src = slot % 2 === 1 ? params[2] : params[3];
      const r = floatOutput(ctx, slot, src.type, src.dims);
      r.data.set(slot % 2 === 1 ? mean : variance);
      results.push(r.commit());
    }
  }
  return results;
}

export const batchNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BatchNormalization',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES, T1: FLOAT_KERNEL_TYPES, T2: FLOAT_KERNEL_TYPES },
  create: simpleKernel(runBatchNorm),
});
