import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { castInto } from '../math/cast.js';

const TYPES = [...NUMERIC, 'bool', 'string'] as const;

/** ONNX CastLike: Cast to the element type of the second input. */
export const castLikeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'CastLike',
  sinceVersion: 15,
  typeConstraints: { T1: TYPES, T2: TYPES },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      const out = ctx.output(0, ctx.input(1).type, x.dims);
      castInto(x, out);
      return [out];
    },
  }),
});
