/** ConcatFromSequence: concatenates (or, with new_axis, stacks) the sequence's tensors along `axis`. */
import { SwitchyardError } from '@switchyard/core';
import { allocOutput } from '../tensor-ops/elements.js';
import { normalizeAxis } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { concatDims, concatInto } from './Concat.js';

export const concatFromSequenceKernel = tensorKernel({
  opType: 'ConcatFromSequence',
  sinceVersion: 11,
  create({ attrs }) {
    const axisAttr = attrs.int('axis');
    const newAxis = attrs.int('new_axis', 0) !== 0;
    return {
      run(ctx) {
        let items = ctx.sequenceInput(0);
        if (items.length === 0) throw new SwitchyardError('RUNTIME', 'ConcatFromSequence: the sequence is empty');
        const r = items[0].dims.length;
        const axis = normalizeAxis(axisAttr, newAxis ? r + 1 : r, 'ConcatFromSequence');
        // Stacking is concatenation after inserting a size-1 axis (a view, no copy).
        if (newAxis) items = items.map((t) => t.reshape([...t.dims.slice(0, axis), 1, ...t.dims.slice(axis)]));
        const dims = concatDims(items, axis, 'ConcatFromSequence');
        const out = allocOutput(ctx, 0, items[0].type, dims);
        concatInto(items, axis, dims, out.data);
        return [out];
      },
    };
  },
});
