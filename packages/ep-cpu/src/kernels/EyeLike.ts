/** EyeLike: a 2-D tensor shaped like the input with ones on diagonal k, in `dtype` (default: the input's). */
import { SwitchyardError, dataTypeFromOnnx } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, fillRun, storageValue, zeroOf, type Elements } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const eyeLikeKernel = tensorKernel({
  opType: 'EyeLike',
  sinceVersion: 9,
  typeConstraints: { T1: TENSOR_TYPES, T2: TENSOR_TYPES },
  create({ attrs }) {
    const dtypeNum = attrs.has('dtype') ? attrs.int('dtype') : undefined;
    const k = attrs.int('k', 0);
    const dtype = dtypeNum === undefined ? undefined : dataTypeFromOnnx(dtypeNum);
    if (dtypeNum !== undefined && (dtype === undefined || dtype === 'string')) {
      throw new SwitchyardError('INVALID_MODEL', `EyeLike: unsupported dtype ${dtypeNum}`);
    }
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.dims.length !== 2) throw new SwitchyardError('INVALID_SHAPE', 'EyeLike: input must be 2-D');
        const type = dtype ?? x.type;
        if (type === 'string' || type === 'complex64' || type === 'complex128') throw new SwitchyardError('UNSUPPORTED', `EyeLike: ${type} output`);
        const [R, C] = x.dims;
        const out = allocOutput(ctx, 0, type, [R, C]);
        fillRun(out.data, 0, out.size, zeroOf(type));
        const one = storageValue(type, 1);
        const dst: Elements = out.data;
        for (let i = Math.max(0, -k); i < R && i + k < C; i++) dst[i * C + i + k] = one;
        return [out];
      },
    };
  },
});
