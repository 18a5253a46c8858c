/** Gather: out = data[:axis] × indices × data[axis+1:], one contiguous run per index. */
import { TENSOR_TYPES, INDEX_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { checkIndex, indexAt, normalizeAxis, product, requireIndexTensor } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const gatherKernel = tensorKernel({
  opType: 'Gather',
  sinceVersion: 1,
  typeConstraints: { T: TENSOR_TYPES, Tind: INDEX_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.int('axis', 0);
    return {
      run(ctx) {
        const data = ctx.input(0);
        const indices = ctx.input(1);
        checkMovable(data, 'Gather');
        requireIndexTensor(indices, 'Gather indices');
        const axis = normalizeAxis(axisAttr, data.dims.length, 'Gather');
        const outDims = [...data.dims.slice(0, axis), ...indices.dims, ...data.dims.slice(axis + 1)];
        const out = allocOutput(ctx, 0, data.type, outDims);
        const outer = product(data.dims, 0, axis);
        const inner = product(data.dims, axis + 1);
        const axisDim = data.dims[axis];
        const n = indices.size;
        // Check every index before writing anything.
        const idx = new Array<number>(n);
        for (let k = 0; k < n; k++) idx[k] = checkIndex(indexAt(indices.data as ArrayLike<number | bigint>, k), axisDim, 'Gather');
        for (let o = 0; o < outer; o++) {
          for (let k = 0; k < n; k++) copyRun(data.data, (o * axisDim + idx[k]) * inner, out.data, (o * n + k) * inner, inner);
        }
        return [out];
      },
    };
  },
});
