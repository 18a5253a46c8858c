/** OptionalGetElement: the optional's value (a copy for tensors); an empty optional is a RUNTIME error. */
import { SwitchyardError } from '@switchyard/core';
import { copyToOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const optionalGetElementKernel = tensorKernel({
  opType: 'OptionalGetElement',
  sinceVersion: 15,
  create: () => ({
    run(ctx) {
      const v = ctx.inputs[0];
      if (v === undefined || v === null) throw new SwitchyardError('RUNTIME', 'OptionalGetElement: the optional is empty');
      if (Array.isArray(v)) return [[...v]];
      return [copyToOutput(ctx, 0, v, v.dims)];
    },
  }),
});
