/** ScatterND: a copy of data with each index tuple's slice replaced (or combined, opset 16+) by updates. */
import { SwitchyardError } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { reductionFor } from '../tensor-ops/reduction.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { planNdIndices } from './GatherND.js';

export const scatterNDKernel = tensorKernel({
  opType: 'ScatterND',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const reduction = attrs.string('reduction', 'none');
    return {
      run(ctx) {
        const data = ctx.input(0);
        const indices = ctx.input(1);
        const updates = ctx.input(2);
        checkMovable(data, 'ScatterND');
        if (updates.type !== data.type) throw new SwitchyardError('RUNTIME', `ScatterND: updates are ${updates.type}, data is ${data.type}`);
        const plan = planNdIndices(data, indices, 0, 'ScatterND');
        const k = indices.dims[indices.dims.length - 1];
        const want = [...indices.dims.slice(0, -1), ...data.dims.slice(k)];
        if (updates.dims.length !== want.length || updates.dims.some((d, i) => d !== want[i])) {
          throw new SwitchyardError('INVALID_SHAPE', `ScatterND: updates [${updates.dims.join(', ')}] must have shape [${want.join(', ')}]`);
        }
        const combine = reductionFor(reduction, data.type, 'ScatterND');
        const out = allocOutput(ctx, 0, data.type, data.dims);
        copyRun(data.data, 0, out.data, 0, data.size);
        const dst = out.data;
        const upd = updates.data;
        const n = plan.sliceSize;
        for (let t = 0; t < plan.tuples; t++) {
          const off = plan.offsets[t];
          if (!combine) copyRun(upd, t * n, dst, off, n);
          else for (let j = 0; j < n; j++) dst[off + j] = combine(dst[off + j], upd[t * n + j]);
        }
        return [out];
      },
    };
  },
});
