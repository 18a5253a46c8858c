/**
 * CenterCropPad (opset 18): each listed axis is cropped or zero-padded to its target length, centred.
 * When the difference is odd, the extra element is cut from (or padded onto) the end.
 */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { normalizeAxes, readInts } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

const OP = 'CenterCropPad';

export const centerCropPadKernel = tensorKernel({
  opType: OP,
  sinceVersion: 18,
  typeConstraints: { T: TENSOR_TYPES, Tind: ['int32', 'int64'] },
  create({ attrs }) {
    const axesAttr = attrs.has('axes') ? attrs.ints('axes') : undefined;
    return {
      run(ctx) {
        const x = ctx.input(0);
        checkMovable(x, OP);
        const rank = x.dims.length;
        const shape = readInts(ctx.input(1), `${OP} shape`);
        const axes = axesAttr ? normalizeAxes(axesAttr, rank, OP) : Array.from({ length: rank }, (_, i) => i);
        if (shape.length !== axes.length) {
          throw new SwitchyardError('INVALID_SHAPE', `${OP}: shape has ${shape.length} values for ${axes.length} axes`);
        }
        const outDims = [...x.dims];
        // Per axis: where the kept run starts in the input and in the output, and its length.
        const inStart = new Array<number>(rank).fill(0);
        const outStart = new Array<number>(rank).fill(0);
        axes.forEach((a, k) => {
          const target = shape[k];
          if (target < 0) throw new SwitchyardError('INVALID_SHAPE', `${OP}: target length ${target} for axis ${a} is negative`);
          const dim = x.dims[a];
          outDims[a] = target;
          if (target < dim) inStart[a] = Math.floor((dim - target) / 2);
          else outStart[a] = Math.floor((target - dim) / 2);
        });
        const out = allocOutput(ctx, 0, x.type, outDims); // checks the size before anything is allocated
        const keep = outDims.map((d, a) => Math.min(d, x.dims[a]));
        if (keep.some((d) => d === 0)) return [out];
        const inStrides = rowMajorStrides(x.dims);
        const outStrides = rowMajorStrides(outDims);
        const run = rank === 0 ? 1 : keep[rank - 1];
        // Odometer over every axis but the last, copying one contiguous run per step.
        const idx = new Array<number>(Math.max(0, rank - 1)).fill(0);
        for (;;) {
          let src = 0;
          let dst = 0;
          for (let a = 0; a < rank; a++) {
            const i = a < rank - 1 ? idx[a] : 0;
            src += (inStart[a] + i) * inStrides[a];
            dst += (outStart[a] + i) * outStrides[a];
          }
          copyRun(x.data, src, out.data, dst, run);
          let a = rank - 2;
          while (a >= 0 && ++idx[a] === keep[a]) idx[a--] = 0;
          if (a < 0) break;
        }
        return [out];
      },
    };
  },
});
