/**
 * Batch buckets: a run with batch b uses the program compiled for the smallest bucket ≥ b. Inputs are
 * padded up to the bucket by repeating their last row (real values, so padding cannot introduce a
 * log(0) or a 0/0 that zeros might), and outputs are cut back to b rows. This is only correct for
 * partitions whose rows are independent along the batch dimension, which `dynamicBatch` asks the user to promise.
 */
import { SwitchyardError, Tensor, allocateData, type DataType, type TensorData } from '@switchyard/core';

export function bucketFor(batch: number, buckets: readonly number[]): number {
  for (const b of buckets) if (b >= batch) return b;
  throw new SwitchyardError('INVALID_ARGUMENT', `migraphx EP: batch ${batch} exceeds dynamicBatch.max (${buckets[buckets.length - 1]})`);
}

function rowLength(dims: readonly number[]): number {
  return dims.slice(1).reduce((a, b) => a * b, 1);
}

/** `t` with its leading dim grown to `rows`, the new rows copies of its last row. */
export function padRows(t: Tensor, rows: number): Tensor {
  const batch = t.dims[0];
  if (batch === rows) return t;
  if (batch === 0 || batch > rows) throw new SwitchyardError('INVALID_ARGUMENT', `migraphx EP: cannot pad a batch of ${batch} to ${rows}`);
  const row = rowLength(t.dims);
  const dims = [rows, ...t.dims.slice(1)];
  const src = t.data;
  const out = allocateData(t.type, rows * row) as TensorData;
  if (Array.isArray(src) || Array.isArray(out)) throw new SwitchyardError('UNSUPPORTED', 'migraphx EP: string tensors cannot be batched');
  const slots = (src as { length: number }).length / t.size; // 2 for complex types
  (out as Float32Array).set(src as Float32Array, 0);
  const last = (src as Float32Array).subarray((batch - 1) * row * slots, batch * row * slots);
  for (let r = batch; r < rows; r++) (out as Float32Array).set(last, r * row * slots);
  return new Tensor(t.type as DataType, out, dims);
}

/** The first `rows` rows of `t`. */
export function sliceRows(t: Tensor, rows: number): Tensor {
  if (t.dims[0] === rows) return t;
  const row = rowLength(t.dims);
  const src = t.data;
  if (Array.isArray(src)) return new Tensor(t.type, src.slice(0, rows * row), [rows, ...t.dims.slice(1)]);
  const slots = (src as { length: number }).length / Math.max(t.size, 1);
  const view = src as Float32Array;
  return new Tensor(t.type, view.slice(0, rows * row * slots) as TensorData, [rows, ...t.dims.slice(1)]);
}
