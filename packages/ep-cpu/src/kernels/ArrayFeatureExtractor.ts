/**
 * ai.onnx.ml ArrayFeatureExtractor: selects features along X's last axis by the int64 indices Y
 * (flattened). Output [...X.dims[:-1], |Y|]; a 1-D X gives [1, |Y|], as ONNX Runtime does.
 */
import { SwitchyardError, defineKernel } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { readInts } from '../tensor-ops/indices.js';

const OP = 'ArrayFeatureExtractor';

export const arrayFeatureExtractorKernel = defineKernel({
  ep: 'cpu',
  domain: 'ai.onnx.ml',
  opType: OP,
  sinceVersion: 1,
  implementation: 'ts',
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      checkMovable(x, OP);
      const index = readInts(ctx.input(1), `${OP} Y`);
      if (x.dims.length === 0) throw new SwitchyardError('INVALID_SHAPE', `${OP}: X must have at least one dim`);
      const F = x.dims[x.dims.length - 1];
      const bad = index.find((i) => i < 0 || i >= F);
      if (bad !== undefined) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: index ${bad} is outside the ${F} features`);
      const rows = x.size / Math.max(F, 1);
      const dims = x.dims.length === 1 ? [1, index.length] : [...x.dims.slice(0, -1), index.length];
      const out = allocOutput(ctx, 0, x.type, dims);
      const src = x.data as ArrayLike<unknown>;
      const dst = out.data as unknown as unknown[];
      for (let r = 0, o = 0; r < (F === 0 ? 0 : rows); r++) for (const i of index) dst[o++] = src[r * F + i];
      return [out];
    },
  }),
});
