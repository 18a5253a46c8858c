/** Size: the element count as an int64 scalar. */
import { LAYOUT_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const sizeKernel = tensorKernel({
  opType: 'Size',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES },
  create: () => ({
    run(ctx) {
      const out = ctx.output(0, 'int64', []);
      out.data[0] = BigInt(ctx.input(0).size);
      return [out];
    },
  }),
});
