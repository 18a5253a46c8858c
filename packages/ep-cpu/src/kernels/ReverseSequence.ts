/** ReverseSequence: for each batch entry, reverses the first sequence_lens[b] steps along the time axis. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { readInts } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const reverseSequenceKernel = tensorKernel({
  opType: 'ReverseSequence',
  sinceVersion: 10,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const batchAxis = attrs.int('batch_axis', 1);
    const timeAxis = attrs.int('time_axis', 0);
    if (!((batchAxis === 0 && timeAxis === 1) || (batchAxis === 1 && timeAxis === 0))) {
      throw new SwitchyardError('INVALID_MODEL', 'ReverseSequence: batch_axis and time_axis must be 0 and 1 in some order');
    }
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'ReverseSequence');
        if (x.dims.length < 2) throw new SwitchyardError('INVALID_SHAPE', 'ReverseSequence: input rank must be ≥ 2');
        const lens = readInts(ctx.input(1), 'ReverseSequence sequence_lens');
        const B = x.dims[batchAxis];
        const T = x.dims[timeAxis];
        if (lens.length !== B) throw new SwitchyardError('INVALID_SHAPE', `ReverseSequence: ${lens.length} lengths for batch ${B}`);
        const s = rowMajorStrides(x.dims);
        const inner = s[1];
        const out = allocOutput(ctx, 0, x.type, x.dims);
        for (let b = 0; b < B; b++) {
          const len = lens[b];
          if (len < 0 || len > T) throw new SwitchyardError('RUNTIME', `ReverseSequence: length ${len} is outside [0, ${T}]`);
          for (let t = 0; t < T; t++) {
            const from = t < len ? len - 1 - t : t;
            copyRun(x.data, b * s[batchAxis] + from * s[timeAxis], out.data, b * s[batchAxis] + t * s[timeAxis], inner);
          }
        }
        return [out];
      },
    };
  },
});
