/** DepthToSpace (DCR or CRD) as a reshape to 6-D and one transpose. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { transposeInto } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const depthToSpaceKernel = tensorKernel({
  opType: 'DepthToSpace',
  sinceVersion: 1,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const b = attrs.int('blocksize');
    const mode = attrs.string('mode', 'DCR');
    if (mode !== 'DCR' && mode !== 'CRD') throw new SwitchyardError('INVALID_MODEL', `DepthToSpace: unknown mode '${mode}'`);
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'DepthToSpace');
        if (x.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', 'DepthToSpace: input must be 4-D');
        const [N, C, H, W] = x.dims;
        if (b < 1 || C % (b * b) !== 0) throw new SwitchyardError('INVALID_SHAPE', `DepthToSpace: channels ${C} are not divisible by blocksize² ${b * b}`);
        const c = C / (b * b);
        const out = allocOutput(ctx, 0, x.type, [N, c, H * b, W * b]);
        if (mode === 'DCR') transposeInto(x.data, [N, b, b, c, H, W], [0, 3, 4, 1, 5, 2], out.data);
        else transposeInto(x.data, [N, c, b, b, H, W], [0, 1, 4, 2, 5, 3], out.data);
        return [out];
      },
    };
  },
});
