/**
 * Resize. Opset 10: (X, scales), asymmetric coordinates, nearest rounds like Upsample. Opset 11/13:
 * (X, roi, scales, sizes) with coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside and extrapolation_value; from 13 roi/scales may be omitted or empty. Opset 18:
 * antialias, axes, keep_aspect_ratio_policy; 19: half_pixel_symmetric (nn/resize-spec.ts reads them).
 */
import { defineKernel } from '@switchyard/core';
import { resizeTensor } from '../nn/resize.js';
import { readResizeSpec, resizeTarget } from '../nn/resize-spec.js';

export const resizeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Resize',
  sinceVersion: 10,
  create: (init) => {
    const spec = readResizeSpec('Resize', init.attrs, init.opset);
    return {
      run(ctx) {
        const X = ctx.input(0);
        const { outDims, scales, roi } = resizeTarget(spec, X.dims, (i) => ctx.optionalInput(i));
        return [resizeTensor(ctx, 'Resize', X, outDims, scales, { ...spec.options, roi })];
      },
    };
  },
});
