/** SequenceEmpty: an empty sequence (the dtype attribute only matters for static typing). */
import { tensorKernel } from '../tensor-ops/define.js';

export const sequenceEmptyKernel = tensorKernel({
  opType: 'SequenceEmpty',
  sinceVersion: 11,
  create: () => ({ run: () => [[]] }),
});
