/** Optional: wraps the input (a copy) or, when absent, gives an empty optional (null). */
import { copyToOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const optionalKernel = tensorKernel({
  opType: 'Optional',
  sinceVersion: 15,
  create: () => ({
    run(ctx) {
      const v = ctx.inputs[0];
      if (v === undefined || v === null) return [null];
      if (Array.isArray(v)) return [[...v]];
      return [copyToOutput(ctx, 0, v, v.dims)];
    },
  }),
});
