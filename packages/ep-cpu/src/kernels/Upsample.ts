/**
 * Upsample (7–10, deprecated for Resize): nearest or linear with asymmetric coordinates; scales is an
 * attribute in 7–8 and an input from 9.
 */
import { defineKernel } from '@switchyard/core';
import { resizeTensor } from '../nn/resize.js';
import { readResizeSpec, resizeTarget } from '../nn/resize-spec.js';

export const upsampleKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Upsample',
  sinceVersion: 7,
  create: (init) => {
    const spec = readResizeSpec('Upsample', init.attrs, init.opset);
    return {
      run(ctx) {
        const X = ctx.input(0);
        const { outDims, scales } = resizeTarget(spec, X.dims, (i) => ctx.optionalInput(i));
        return [resizeTensor(ctx, 'Upsample', X, outDims, scales, spec.options)];
      },
    };
  },
});
