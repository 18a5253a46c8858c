/** SequenceErase: a new sequence without the element at `position` (default: the last). */
import { SwitchyardError } from '@switchyard/core';
import { tensorKernel } from '../tensor-ops/define.js';
import { sequencePosition } from '../tensor-ops/sequence-position.js';

export const sequenceEraseKernel = tensorKernel({
  opType: 'SequenceErase',
  sinceVersion: 11,
  create: () => ({
    run(ctx) {
      const seq = ctx.sequenceInput(0);
      if (seq.length === 0) throw new SwitchyardError('RUNTIME', 'SequenceErase: the sequence is empty');
      const posT = ctx.optionalInput(1);
      const at = posT ? sequencePosition(posT, seq.length, 'SequenceErase') : seq.length - 1;
      return [seq.filter((_, i) => i !== at)];
    },
  }),
});
