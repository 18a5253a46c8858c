/** Flatten: [d0…d(axis-1)] × [d(axis)…] as a 2-D copy. */
import { SwitchyardError } from '@switchyard/core';
import { copyToOutput, LAYOUT_TYPES, sameElementsInPlace } from '../tensor-ops/elements.js';
import { product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const flattenKernel = tensorKernel({
  opType: 'Flatten',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES },
  create(init) {
    const axisAttr = init.attrs.int('axis', 1);
    return {
      inPlace: sameElementsInPlace(init),
      run(ctx) {
        const x = ctx.input(0);
        const r = x.dims.length;
        if (axisAttr < -r || axisAttr > r) throw new SwitchyardError('INVALID_SHAPE', `Flatten: axis ${axisAttr} is out of range for rank ${r}`);
        const axis = axisAttr < 0 ? axisAttr + r : axisAttr;
        return [copyToOutput(ctx, 0, x, [product(x.dims, 0, axis), product(x.dims, axis)])];
      },
    };
  },
});
