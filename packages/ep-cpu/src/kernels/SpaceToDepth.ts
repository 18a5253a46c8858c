/** SpaceToDepth as a reshape to 6-D and one transpose (the inverse of DepthToSpace; `mode` from opset 28). */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { transposeInto } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const spaceToDepthKernel = tensorKernel({
  opType: 'SpaceToDepth',
  sinceVersion: 1,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const b = attrs.int('blocksize');
    const mode = attrs.string('mode', 'DCR');
    if (mode !== 'DCR' && mode !== 'CRD') throw new SwitchyardError('INVALID_MODEL', `SpaceToDepth: unknown mode '${mode}'`);
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'SpaceToDepth');
        if (x.dims.length !== 4) throw new SwitchyardError('INVALID_SHAPE', 'SpaceToDepth: input must be 4-D');
        const [N, C, H, W] = x.dims;
        if (b < 1 || H % b !== 0 || W % b !== 0) {
          throw new SwitchyardError('INVALID_SHAPE', `SpaceToDepth: spatial dims ${H}×${W} are not divisible by blocksize ${b}`);
        }
        const out = allocOutput(ctx, 0, x.type, [N, C * b * b, H / b, W / b]);
        // DCR puts the block offsets outermost in the new channel dim, CRD innermost.
        const perm = mode === 'DCR' ? [0, 3, 5, 1, 2, 4] : [0, 1, 3, 5, 2, 4];
        transposeInto(x.data, [N, C, H / b, b, W / b, b], perm, out.data);
        return [out];
      },
    };
  },
});
