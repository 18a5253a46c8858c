/** SequenceAt: a copy of the element at `position` (negative counts from the end). */
import { TENSOR_TYPES, copyToOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { sequencePosition } from '../tensor-ops/sequence-position.js';

export const sequenceAtKernel = tensorKernel({
  opType: 'SequenceAt',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const seq = ctx.sequenceInput(0);
      const t = seq[sequencePosition(ctx.input(1), seq.length, 'SequenceAt')];
      return [copyToOutput(ctx, 0, t, t.dims)];
    },
  }),
});
