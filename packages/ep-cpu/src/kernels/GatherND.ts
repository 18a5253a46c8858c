/** GatherND with batch_dims: each index tuple selects a contiguous slice of data. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { TENSOR_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { checkIndex, indexAt, product, requireIndexTensor } from '../tensor-ops/indices.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

export interface NdIndexPlan {
  /** Number of index tuples (over all batches). */
  tuples: number;
  /** Tuples per batch. */
  perBatch: number;
  /** Elements per selected slice. */
  sliceSize: number;
  /** Data offset of each tuple's slice. */
  offsets: number[];
}

/** Resolves ND index tuples to data offsets (shared with ScatterND), with batch dims and bounds checked. */
export function planNdIndices(data: Tensor, indices: Tensor, batchDims: number, op: string): NdIndexPlan {
  requireIndexTensor(indices, `${op} indices`);
  const q = indices.dims.length;
  const r = data.dims.length;
  if (q < 1) throw new SwitchyardError('INVALID_SHAPE', `${op}: indices must have rank ≥ 1`);
  const k = indices.dims[q - 1];
  if (batchDims < 0 || batchDims >= Math.min(q, r)) throw new SwitchyardError('INVALID_SHAPE', `${op}: batch_dims ${batchDims} is out of range`);
  if (k + batchDims > r) throw new SwitchyardError('INVALID_SHAPE', `${op}: index tuples of length ${k} exceed data rank ${r} (batch_dims ${batchDims})`);
  for (let i = 0; i < batchDims; i++) {
    if (indices.dims[i] !== data.dims[i]) throw new SwitchyardError('INVALID_SHAPE', `${op}: batch dim ${i} differs between data and indices`);
  }
  const ds = rowMajorStrides(data.dims);
  const batches = product(data.dims, 0, batchDims);
  const batchStride = product(data.dims, batchDims);
  const tuples = product(indices.dims, 0, q - 1);
  const perBatch = batches === 0 ? 0 : tuples / batches;
  const idx = indices.data as ArrayLike<number | bigint>;
  const offsets = new Array<number>(tuples);
  for (let t = 0; t < tuples; t++) {
    let off = Math.floor(t / perBatch) * batchStride;
    for (let j = 0; j < k; j++) {
      const axis = batchDims + j;
      off += checkIndex(indexAt(idx, t * k + j), data.dims[axis], op) * ds[axis];
    }
    offsets[t] = off;
  }
  return { tuples, perBatch, sliceSize: product(data.dims, batchDims + k), offsets };
}

export const gatherNDKernel = tensorKernel({
  opType: 'GatherND',
  sinceVersion: 11,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs }) {
    const batchDims = attrs.int('batch_dims', 0);
    return {
      run(ctx) {
        const data = ctx.input(0);
        const indices = ctx.input(1);
        checkMovable(data, 'GatherND');
        const plan = planNdIndices(data, indices, batchDims, 'GatherND');
        const k = indices.dims[indices.dims.length - 1];
        const outDims = [...indices.dims.slice(0, -1), ...data.dims.slice(batchDims + k)];
        const out = allocOutput(ctx, 0, data.type, outDims);
        for (let t = 0; t < plan.tuples; t++) copyRun(data.data, plan.offsets[t], out.data, t * plan.sliceSize, plan.sliceSize);
        return [out];
      },
    };
  },
});
