/** GatherElements: out[i…] = data[i… with i_axis replaced by indices[i…]]; indices may be smaller than data. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, INDEX_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { checkIndex, indexAt, normalizeAxis, requireIndexTensor } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

/**
 * Calls `visit(k, dataOffset)` for every element k of `indices`, where dataOffset addresses `data` at
 * k's coordinates with the `axis` coordinate taken from the index. Shared with ScatterElements.
 */
export function forEachElementIndex(data: Tensor, indices: Tensor, axis: number, op: string, visit: (k: number, dataOffset: number) => void): void {
  const r = data.dims.length;
  if (indices.dims.length !== r) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: indices rank ${indices.dims.length} differs from data rank ${r}`);
  }
  for (let i = 0; i < r; i++) {
    if (i !== axis && indices.dims[i] > data.dims[i]) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: indices [${indices.dims.join(', ')}] exceed data [${data.dims.join(', ')}] on axis ${i}`);
    }
  }
  if (indices.size === 0) return;
  const ds = rowMajorStrides(data.dims);
  const idxData = indices.data as ArrayLike<number | bigint>;
  const coord = new Array<number>(r).fill(0);
  const axisDim = data.dims[axis];
  let base = 0; // data offset of the current coordinates, leaving out the axis term
  for (let k = 0; k < indices.size; k++) {
    visit(k, base + checkIndex(indexAt(idxData, k), axisDim, op) * ds[axis]);
    for (let i = r - 1; i >= 0; i--) {
      if (i !== axis) base += ds[i];
      if (++coord[i] < indices.dims[i]) break;
      if (i !== axis) base -= ds[i] * indices.dims[i];
      coord[i] = 0;
    }
  }
}

export const gatherElementsKernel = tensorKernel({
  opType: 'GatherElements',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES, Tind: INDEX_TYPES },
  create({ attrs }) {
    const axisAttr = attrs.int('axis', 0);
    return {
      run(ctx) {
        const data = ctx.input(0);
        const indices = ctx.input(1);
        checkMovable(data, 'GatherElements');
        requireIndexTensor(indices, 'GatherElements indices');
        const axis = normalizeAxis(axisAttr, data.dims.length, 'GatherElements');
        const out = allocOutput(ctx, 0, data.type, indices.dims);
        const src = data.data;
        const dst = out.data;
        forEachElementIndex(data, indices, axis, 'GatherElements', (k, off) => {
          dst[k] = src[off];
        });
        return [out];
      },
    };
  },
});
