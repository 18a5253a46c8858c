/** MatMul shapes: numpy-style batch broadcasting and 1-D promotion, shared by the MatMul-like ops. */
import { SwitchyardError } from '@switchyard/core';

export interface MatMulPlan {
  M: number;
  K: number;
  N: number;
  /** Broadcast batch dims. */
  batch: number[];
  /** Per broadcast batch index: matrix offsets into A and B (in matrices, not elements). */
  aIndex: Int32Array;
  bIndex: Int32Array;
  outDims: number[];
}

/** Shapes and batch broadcasting for MatMul-like ops (MatMul, MatMulInteger, QLinearMatMul). */
export function planMatMul(op: string, aDims: readonly number[], bDims: readonly number[]): MatMulPlan {
  if (aDims.length === 0 || bDims.length === 0) throw new SwitchyardError('INVALID_SHAPE', `${op}: operands must have rank ≥ 1`);
  const a = aDims.length === 1 ? [1, aDims[0]] : [...aDims];
  const b = bDims.length === 1 ? [bDims[0], 1] : [...bDims];
  const M = a[a.length - 2];
  const K = a[a.length - 1];
  const N = b[b.length - 1];
  if (b[b.length - 2] !== K) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: inner dimensions differ: A [${aDims.join(', ')}], B [${bDims.join(', ')}]`);
  }
  const aBatch = a.slice(0, -2);
  const bBatch = b.slice(0, -2);
  const rank = Math.max(aBatch.length, bBatch.length);
  const batch: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = aBatch[i - (rank - aBatch.length)] ?? 1;
    const db = bBatch[i - (rank - bBatch.length)] ?? 1;
    if (da !== db && da !== 1 && db !== 1) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: batch dims of A [${aDims.join(', ')}] and B [${bDims.join(', ')}] do not broadcast`);
    }
    batch.push(da === 1 ? db : da);
  }
  const count = batch.reduce((p, d) => p * d, 1);
  const aIndex = new Int32Array(count);
  const bIndex = new Int32Array(count);
  for (let flat = 0; flat < count; flat++) {
    let rem = flat;
    let ai = 0;
    let bi = 0;
    let aStride = 1;
    let bStride = 1;
    for (let i = rank - 1; i >= 0; i--) {
      const idx = rem % batch[i];
      rem = Math.floor(rem / batch[i]);
      const da = aBatch[i - (rank - aBatch.length)] ?? 1;
      const db = bBatch[i - (rank - bBatch.length)] ?? 1;
      if (da !== 1) ai += idx * aStride;
      if (db !== 1) bi += idx * bStride;
      aStride *= da;
      bStride *= db;
    }
    aIndex[flat] = ai;
    bIndex[flat] = bi;
  }
  const outDims = [...batch];
  if (aDims.length > 1) outDims.push(M);
  if (bDims.length > 1) outDims.push(N);
  return { M, K, N, batch, aIndex, bIndex, outDims };
}
