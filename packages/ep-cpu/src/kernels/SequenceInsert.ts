/** SequenceInsert: a new sequence with a copy of the tensor at `position` (default: the end). */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, cloneTensor } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { sequencePosition } from '../tensor-ops/sequence-position.js';

export const sequenceInsertKernel = tensorKernel({
  opType: 'SequenceInsert',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const seq = ctx.sequenceInput(0);
      const t = ctx.input(1);
      if (seq.length > 0 && seq[0].type !== t.type) {
        throw new SwitchyardError('RUNTIME', `SequenceInsert: inserting ${t.type} into a sequence of ${seq[0].type}`);
      }
      const posT = ctx.optionalInput(2);
      const at = posT ? sequencePosition(posT, seq.length, 'SequenceInsert', true) : seq.length;
      const out = [...seq];
      out.splice(at, 0, cloneTensor(t));
      return [out];
    },
  }),
});
