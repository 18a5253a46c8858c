/** Compress: the slices along `axis` (or elements of the flattened input) whose condition is true. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { normalizeAxis, product } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const compressKernel = tensorKernel({
  opType: 'Compress',
  sinceVersion: 9,
  typeConstraints: { T: TENSOR_TYPES, T1: ['bool'] },
  create({ attrs }) {
    const axisAttr = attrs.has('axis') ? attrs.int('axis') : undefined;
    return {
      run(ctx) {
        const x = ctx.input(0);
        const cond = ctx.input(1);
        checkMovable(x, 'Compress');
        if (cond.dims.length !== 1) throw new SwitchyardError('INVALID_SHAPE', 'Compress: condition must be 1-D');
        const dims = axisAttr === undefined ? [x.size] : [...x.dims];
        const axis = axisAttr === undefined ? 0 : normalizeAxis(axisAttr, x.dims.length, 'Compress');
        const len = dims[axis];
        if (cond.size > len) throw new SwitchyardError('INVALID_SHAPE', `Compress: condition has ${cond.size} entries for a dimension of ${len}`);
        const keep: number[] = [];
        for (let i = 0; i < cond.size; i++) if (cond.data[i]) keep.push(i);
        const outer = product(dims, 0, axis);
        const inner = product(dims, axis + 1);
        const outDims = [...dims];
        outDims[axis] = keep.length;
        const out = allocOutput(ctx, 0, x.type, outDims);
        let o = 0;
        for (let b = 0; b < outer; b++) {
          for (const i of keep) {
            copyRun(x.data, (b * len + i) * inner, out.data, o, inner);
            o += inner;
          }
        }
        return [out];
      },
    };
  },
});
