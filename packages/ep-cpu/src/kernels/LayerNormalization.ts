/**
 * LayerNormalization (opset 17): normalizes over dims [axis, rank) with Scale and optional B broadcast
 * to those dims; optional Mean and InvStdDev outputs have the normalized dims set to 1.
 * Statistics are accumulated in float64 whatever stash_type says (at least as precise as float32).
 */
import { defineKernel, elementCount, simpleKernel, type Tensor } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, normalizeAxis } from '../nn/float-io.js';
import { broadcastIndex } from '../nn/norm-helpers.js';

export const layerNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LayerNormalization',
  sinceVersion: 17,
  typeConstraints: { T: FLOAT_KERNEL_TYPES, U: ['float32', 'bfloat16'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const Scale = ctx.input(1);
    const B = ctx.optionalInput(2);
    const rank = X.dims.length;
    const axis = normalizeAxis(init.attrs.int('axis', -1), rank, 'LayerNormalization');
    const eps = init.attrs.float('epsilon', 1e-5);
    const normDims = X.dims.slice(axis);
    const outer = elementCount(X.dims.slice(0, axis));
    const inner = elementCount(normDims);
    const sIdx = broadcastIndex('LayerNormalization', 'Scale', Scale.dims, normDims);
    const bIdx = B ? broadcastIndex('LayerNormalization', 'B', B.dims, normDims) : undefined;
    const x = floatData(X);
    const scale = floatData(Scale);
    const bias = B ? floatData(B) : undefined;
    const y = floatOutput(ctx, 0, X.type, X.dims);
    const statDims = [...X.dims.slice(0, axis), ...normDims.map(() => 1)];
    const outs = ctx.node.outputs;
    const meanOut = outs[1] ? floatOutput(ctx, 1, 'float32', statDims) : undefined;
    const invOut = outs[2] ? floatOutput(ctx, 2, 'float32', statDims) : undefined;
    const out = y.data;
    for (let o = 0; o < outer; o++) {
      const base = o * inner;
      let sum = 0;
      for (let i = 0; i < inner; i++) sum += x[base + i];
      const mean = sum / inner;
      let sq = 0;
      for (let i = 0; i < inner; i++) {
        const d = x[base + i] - mean;
        sq += d * d;
      }
      const inv = 1 / Math.sqrt(sq / inner + eps);
      for (let i = 0; i < inner; i++) {
        const s = scale[sIdx ? sIdx[i] : i];
        const b = bias ? bias[bIdx ? bIdx[i] : i] : 0;
        out[base + i] = (x[base + i] - mean) * inv * s + b;
      }
      if (meanOut) meanOut.data[o] = mean;
      if (invOut) invOut.data[o] = inv;
    }
    const results: Array<Tensor | null> = [y.commit()];
    if (outs.length > 1) results.push(meanOut ? meanOut.commit() : null);
    if (outs.length > 2) results.push(invOut ? invOut.commit() : null);
    return results;
  }),
});
