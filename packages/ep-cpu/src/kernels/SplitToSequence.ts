/**
 * SplitToSequence: split sizes from a scalar (equal chunks, the last one shorter), a 1-D tensor, or
 * absent (size-1 chunks, squeezed unless keepdims).
 */
import { SwitchyardError, Tensor, allocateData, elementCount } from '@switchyard/core';
import { TENSOR_TYPES, INDEX_TYPES, checkMovable } from '../tensor-ops/elements.js';
import { normalizeAxis, readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { splitInto, splitSizes } from './Split.js';

export const splitToSequenceKernel = tensorKernel({
  opType: 'SplitToSequence',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES, I: INDEX_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.int('axis', 0);
    const keepDims = attrs.int('keepdims', 1) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, 'SplitToSequence');
        const axis = normalizeAxis(axisAttr, x.dims.length, 'SplitToSequence');
        const len = x.dims[axis];
        const splitT = ctx.optionalInput(1);
        let sizes: number[];
        if (!splitT) sizes = new Array<number>(len).fill(1);
        else if (splitT.dims.length === 0) {
          const chunk = readInts(splitT, 'SplitToSequence split')[0];
          if (chunk <= 0) throw new SwitchyardError('INVALID_SHAPE', `SplitToSequence: split ${chunk} must be positive`);
          sizes = [];
          for (let left = len; left > 0; left -= chunk) sizes.push(Math.min(chunk, left));
        } else sizes = splitSizes(len, readInts(splitT, 'SplitToSequence split'), 0, 'SplitToSequence');
        // Elements live in the sequence, outside the planner's arena.
        const parts = splitInto(x, axis, sizes, (_, dims) => new Tensor(x.type, allocateData(x.type, elementCount(dims)), dims));
        if (splitT || keepDims) return [parts];
        return [parts.map((p) => p.reshape(p.dims.filter((_, i) => i !== axis)))];
      },
    };
  },
});
