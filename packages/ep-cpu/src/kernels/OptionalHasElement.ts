/** OptionalHasElement: bool scalar, true unless the input is an empty optional or absent. */
import { tensorKernel } from '../tensor-ops/define.js';

export const optionalHasElementKernel = tensorKernel({
  opType: 'OptionalHasElement',
  sinceVersion: 15,
  create: () => ({
    run(ctx) {
      const v = ctx.inputs[0];
      const out = ctx.output(0, 'bool', []);
      out.data[0] = v === undefined || v === null ? 0 : 1;
      return [out];
    },
  }),
});
