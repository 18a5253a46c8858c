/**
 * SequenceConstruct: a sequence of copies of the inputs. Sequence elements are copied out of the
 * planner's arena because the planner tracks tensors, not what a sequence holds.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, cloneTensor } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const sequenceConstructKernel = tensorKernel({
  opType: 'SequenceConstruct',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create: () => ({
    run(ctx) {
      const items: Tensor[] = ctx.node.inputs.map((_, i) => ctx.input(i));
      if (items.some((t) => t.type !== items[0].type)) throw new SwitchyardError('RUNTIME', 'SequenceConstruct: inputs must share one type');
      return [items.map(cloneTensor)];
    },
  }),
});
