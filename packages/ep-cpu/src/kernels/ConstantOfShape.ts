/** ConstantOfShape: a tensor of the given shape filled with `value` (float32 zero by default). */
import { SwitchyardError } from '@switchyard/core';
import { allocOutput, fillRun, TENSOR_TYPES } from '../tensor-ops/elements.js';
import { readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const constantOfShapeKernel = tensorKernel({
  opType: 'ConstantOfShape',
  sinceVersion: 9,
  typeConstraints: { T2: TENSOR_TYPES },
  create({ attrs }) {
    const value = attrs.tensor('value');
    if (value && value.size !== 1) {
      throw new SwitchyardError('INVALID_MODEL', `ConstantOfShape: 'value' must hold one element, got ${value.size}`);
    }
    return {
      run(ctx) {
        const dims = readInts(ctx.input(0), 'ConstantOfShape shape');
        const type = value?.type ?? 'float32';
        const out = allocOutput(ctx, 0, type, dims);
        fillRun(out.data, 0, out.size, value ? value.data[0] : 0);
        return [out];
      },
    };
  },
});
