/**
 * MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9) with the expectations over
 * `axes` (default [0, 2, 3]), as in the ONNX function definition.
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, normalizeAxis, type FloatArray } from '../nn/float-io.js';

/**
 * x's dims with size-1 axes dropped and neighbours of the same kind (normalized or kept) merged: blocks
 * that alternate between the kinds, the last one contiguous. `groupStrides` numbers the groups (the
 * combinations of the kept axes) row-major over the kept blocks, 0 on the normalized ones.
 */
export function meanVarianceBlocks(dims: readonly number[], normalized: ReadonlySet<number>): { dims: number[]; normalized: boolean[]; groupStrides: number[]; groups: number } {
  const blocks: number[] = [];
  const kinds: boolean[] = [];
  dims.forEach((d, i) => {
    if (d === 1) return;
    const kind = normalized.has(i);
    if (kinds.length > 0 && kinds[kinds.length - 1] === kind) blocks[blocks.length - 1] *= d;
    else blocks.push(d), kinds.push(kind);
  });
  // Every axis of size 1: one element, its own group.
  if (blocks.length === 0) blocks.push(1), kinds.push(true);
  const groupStrides = new Array<number>(blocks.length);
  let groups = 1;
  for (let i = blocks.length - 1; i >= 0; i--) {
    groupStrides[i] = kinds[i] ? 0 : groups;
    if (!kinds[i]) groups *= blocks[i];
  }
  return { dims: blocks, normalized: kinds, groupStrides, groups };
}

/**
 * Calls visit(offset, group) for each run of the last block in memory order: a normalized last block is a
 * row of one group; a kept one spans groups group … group + run - 1.
 */
function forEachRun(blocks: ReturnType<typeof meanVarianceBlocks>, size: number, visit: (offset: number, group: number) => void): void {
  const { dims, groupStrides } = blocks;
  const outer = dims.length - 1;
  const run = dims[outer];
  const index = new Array<number>(outer).fill(0);
  let g = 0;
  for (let o = 0; o < size; o += run) {
    visit(o, g);
    for (let k = outer - 1; k >= 0; k--) {
      g += groupStrides[k];
      if (++index[k] < dims[k]) break;
      g -= groupStrides[k] * dims[k];
      index[k] = 0;
    }
  }
}

export const meanVarianceNormalizationKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MeanVarianceNormalization',
  sinceVersion: 9,
  typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'bfloat16'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const rank = X.dims.length;
    const axes = new Set(init.attrs.ints('axes', [0, 2, 3]).map((a) => normalizeAxis(a, rank, 'MeanVarianceNormalization')));
    const x = floatData(X);
    const y = floatOutput(ctx, 0, X.type, X.dims);
    if (X.size === 0) return [y.commit()];
    const blocks = meanVarianceBlocks(X.dims, axes);
    const run = blocks.dims[blocks.dims.length - 1];
    const rows = blocks.normalized[blocks.dims.length - 1];
    const { groups } = blocks;
    const count = X.size / groups;
    // Runs in memory order: each group's sums take its elements in flat order.
    const sum = new Float64Array(groups);
    const sumSq = new Float64Array(groups);
    forEachRun(blocks, X.size, (o, g) => {
      if (rows) {
        let s = sum[g];
        let q = sumSq[g];
        for (let i = o; i < o + run; i++) {
          const v = x[i];
          s += v;
          q += v * v;
        }
        sum[g] = s;
        sumSq[g] = q;
        return;
      }
      for (let j = 0; j < run; j++) {
        const v = x[o + j];
        sum[g + j] += v;
        sumSq[g + j] += v * v;
      }
    });
    const mean = sum;
    const denominator = sumSq;
    for (let g = 0; g < groups; g++) {
      const m = sum[g] / count;
      const std = Math.sqrt(Math.max(0, sumSq[g] / count - m * m));
      mean[g] = m;
      denominator[g] = std + 1e-9;
    }
    const out: FloatArray = y.data;
    forEachRun(blocks, X.size, (o, g) => {
      if (rows) {
        const m = mean[g];
        const d = denominator[g];
        for (let i = o; i < o + run; i++) out[i] = (x[i] - m) / d;
        return;
      }
      for (let j = 0; j < run; j++) out[o + j] = (x[o + j] - mean[g + j]) / denominator[g + j];
    });
    return [y.commit()];
  }),
});
