import { defineKernel } from '@switchyard/core';
import { CAST_TYPES } from '../math/dtypes.js';
import { castInto } from '../math/cast.js';
import { narrowingAttrs } from './Cast.js';

/** ONNX CastLike: Cast to the element type of the second input (with Cast's `saturate`/`round_mode`). */
export const castLikeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'CastLike',
  sinceVersion: 15,
  typeConstraints: { T1: CAST_TYPES, T2: CAST_TYPES },
  create: ({ attrs }) => {
    const narrowing = narrowingAttrs(attrs, 'CastLike');
    return {
      run(ctx) {
        const x = ctx.input(0);
        const out = ctx.output(0, ctx.input(1).type, x.dims);
        castInto(x, out, narrowing);
        return [out];
      },
    };
  },
});
