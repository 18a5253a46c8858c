/** SequenceLength: the number of elements as an int64 scalar. */
import { tensorKernel } from '../tensor-ops/define.js';

export const sequenceLengthKernel = tensorKernel({
  opType: 'SequenceLength',
  sinceVersion: 11,
  create: () => ({
    run(ctx) {
      const out = ctx.output(0, 'int64', []);
      out.data[0] = BigInt(ctx.sequenceInput(0).length);
      return [out];
    },
  }),
});
