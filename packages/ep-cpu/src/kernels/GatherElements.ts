/** GatherElements: out[i…] = data[i… with i_axis replaced by indices[i…]]; indices may be smaller than data. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, INDEX_TYPES, allocOutput, checkMovable } from '../tensor-ops/elements.js';
import { checkIndex, indexReader, normalizeAxis, requireIndexTensor } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

/**
 * indices seen as rows of their last axis, shared with ScatterElements. Element j of a row addresses data
 * at `base + (alongRow ? 0 : j) + index · axisStride`, `base` being the row's offset without the axis term.
 */
export interface IndexRows {
  width: number;
  axisDim: number;
  axisStride: number;
  alongRow: boolean;
  /** Calls visit(row, base) for each row in order, keeping the offset without a division per row. */
  forEachRow(visit: (row: number, base: number) => void): void;
}

/** Checks that indices fit data off the axis and describes their rows (see IndexRows). */
export function indexRows(data: Tensor, indices: Tensor, axis: number, op: string): IndexRows {
  const r = data.dims.length;
  if (indices.dims.length !== r) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: indices rank ${indices.dims.length} differs from data rank ${r}`);
  }
  for (let i = 0; i < r; i++) {
    if (i !== axis && indices.dims[i] > data.dims[i]) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: indices [${indices.dims.join(', ')}] exceed data [${data.dims.join(', ')}] on axis ${i}`);
    }
  }
  const ds = rowMajorStrides(data.dims);
  const last = r - 1;
  const width = indices.dims[last];
  const rows = width === 0 ? 0 : indices.size / width;
  return {
    width,
    axisDim: data.dims[axis],
    axisStride: ds[axis],
    alongRow: axis === last,
    forEachRow(visit) {
      const coord = new Array<number>(last).fill(0);
      let base = 0;
      for (let row = 0; row < rows; row++) {
        visit(row, base);
        for (let i = last - 1; i >= 0; i--) {
          if (i !== axis) base += ds[i];
          if (++coord[i] < indices.dims[i]) break;
          if (i !== axis) base -= ds[i] * indices.dims[i];
          coord[i] = 0;
        }
      }
    },
  };
}

/** An index as a number in [0, dim) (negatives count from the end), or the RUNTIME error. */
export function resolveIndex(v: number, dim: number, op: string): number {
  const i = v < 0 ? v + dim : v;
  return i >= 0 && i < dim ? i : checkIndex(v, dim, op);
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
        const rows = indexRows(data, indices, axis, 'GatherElements');
        const out = allocOutput(ctx, 0, data.type, indices.dims);
        const src = data.data;
        const dst = out.data;
        const index = indexReader(indices);
        const { width, axisDim, axisStride, alongRow } = rows;
        rows.forEachRow((row, base) => {
          const k0 = row * width;
          for (let j = 0; j < width; j++) {
            dst[k0 + j] = src[base + (alongRow ? 0 : j) + resolveIndex(index(k0 + j), axisDim, 'GatherElements') * axisStride];
          }
        });
        return [out];
      },
    };
  },
});
