/**
 * The TS MeanVarianceNormalization kernel against a per-element reference (each element's group found
 * from its coordinates, sums in flat order, the ONNX function's formula): bit for bit on float32/float64,
 * and through float16/bfloat16 storage, over many axis sets, ranks and edge shapes.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, bfloat16BitsToFloat32, float16BitsToFloat32, float32ToBfloat16Bits, float32ToFloat16Bits, type DataType } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { meanVarianceNormalizationKernel } from './MeanVarianceNormalization.js';
import { expectIdentical, int, randomTensor, rng } from '../native/native-harness.test-util.js';

/** The reference: plain coordinates, no merging of axes. */
function reference(x: ArrayLike<number>, dims: readonly number[], axes: readonly number[]): Float64Array {
  const rank = dims.length;
  const normalized = new Set(axes.map((a) => (a < 0 ? a + rank : a)));
  const size = x.length;
  const groupOf = new Int32Array(size);
  let groups = 1;
  const keptStride = new Array<number>(rank).fill(0);
  for (let i = rank - 1; i >= 0; i--) {
    if (normalized.has(i)) continue;
    keptStride[i] = groups;
    groups *= dims[i];
  }
  for (let flat = 0; flat < size; flat++) {
    let rem = flat;
    let g = 0;
    for (let i = rank - 1; i >= 0; i--) {
      const c = rem % dims[i];
      rem = Math.floor(rem / dims[i]);
      g += c * keptStride[i];
    }
    groupOf[flat] = g;
  }
  const sum = new Float64Array(groups);
  const sumSq = new Float64Array(groups);
  for (let i = 0; i < size; i++) {
    sum[groupOf[i]] += x[i];
    sumSq[groupOf[i]] += x[i] * x[i];
  }
  const count = size / groups;
  return Float64Array.from(x, (v, i) => {
    const mean = sum[groupOf[i]] / count;
    return (v - mean) / (Math.sqrt(Math.max(0, sumSq[groupOf[i]] / count - mean * mean)) + 1e-9);
  });
}

/** The reference's result stored as `type` stores it. */
function expected(x: Tensor, axes: readonly number[]): Tensor {
  const t = x.type;
  if (t === 'float32' || t === 'float64') {
    const y = reference(x.data as Float32Array, x.dims, axes);
    return new Tensor(t, t === 'float32' ? Float32Array.from(y) : y, x.dims);
  }
  const decode = t === 'float16' ? float16BitsToFloat32 : bfloat16BitsToFloat32;
  const encode = t === 'float16' ? float32ToFloat16Bits : float32ToBfloat16Bits;
  // The kernel computes float16/bfloat16 in float32 storage, as before.
  const wide = Float32Array.from(x.data as Uint16Array, decode);
  const y = Float32Array.from(reference(wide, x.dims, axes));
  return new Tensor(t, Uint16Array.from(y, encode), x.dims);
}

async function check(x: Tensor, axes: number[] | undefined, what: string): Promise<void> {
  const attributes: Record<string, number[]> = axes === undefined ? {} : { axes };
  const [y] = await runKernel(meanVarianceNormalizationKernel, [x], { opset: 13, attributes });
  expectIdentical(y, expected(x, axes ?? [0, 2, 3]), what);
}

/** Every subset of the axes, some written as negative indices. */
function axisSets(rank: number): number[][] {
  const sets: number[][] = [];
  for (let mask = 1; mask < 1 << rank; mask++) {
    const set: number[] = [];
    for (let i = 0; i < rank; i++) if (mask & (1 << i)) set.push(mask % 3 === 0 ? i - rank : i);
    sets.push(set);
  }
  return sets;
}

describe('MeanVarianceNormalization (TS) over any axes', () => {
  it('matches the per-element reference for every axis subset of ranks 1–4', async () => {
    const r = rng(901);
    for (let rank = 1; rank <= 4; rank++) {
      for (const axes of axisSets(rank)) {
        const dims = Array.from({ length: rank }, () => int(r, 1, 5));
        await check(randomTensor('float32', dims, r), axes, `[${dims}] axes [${axes}]`);
      }
    }
  });

  it('default axes, size-1 axes between blocks, rank 5, float64', async () => {
    const r = rng(902);
    await check(randomTensor('float32', [3, 4, 5, 6], r), undefined, 'default axes');
    await check(randomTensor('float64', [2, 3, 4, 5], r), undefined, 'default axes float64');
    await check(randomTensor('float32', [2, 1, 3, 1, 4], r), [0, 2], 'size-1 axes merged away');
    await check(randomTensor('float32', [2, 3, 1, 4, 5], r), [1, 2, 4], 'blocks R K R across a size-1 axis');
    await check(randomTensor('float64', [3, 2, 4, 2, 3], r), [0, 2, 4], 'K R K R K alternation');
    await check(randomTensor('float32', [1, 1, 1], r), [1], 'every axis size 1');
    // (An empty axes list cannot be written as a plain test attribute; normalizing only size-1 axes is the same.)
    await check(randomTensor('float32', [4, 1, 3], r), [1], 'only a size-1 axis: every element its own group');
    await check(randomTensor('float32', [4, 3], r), [1, 1, -1], 'repeated axes');
  });

  it('float16 and bfloat16 keep their storage and the float32 computation', async () => {
    const r = rng(903);
    for (const type of ['float16', 'bfloat16'] as DataType[]) {
      const f = Float32Array.from({ length: 2 * 3 * 4 * 2 }, () => (r() * 2 - 1) * 4);
      const bits = Uint16Array.from(f, type === 'float16' ? float32ToFloat16Bits : float32ToBfloat16Bits);
      await check(new Tensor(type, bits, [2, 3, 4, 2]), undefined, `${type} default axes`);
      await check(new Tensor(type, bits, [2, 3, 4, 2]), [1, 3], `${type} axes [1, 3]`);
    }
  });

  it('edge values and empty tensors', async () => {
    const r = rng(904);
    await check(randomTensor('float32', [3, 4, 5], r, true), [0, 2], 'NaN, ±Inf, huge values');
    const [y] = await runKernel(meanVarianceNormalizationKernel, [new Tensor('float32', new Float32Array(0), [2, 0, 3, 1])], { opset: 13 });
    expect([...(y as Tensor).dims]).toEqual([2, 0, 3, 1]);
    // A constant group: zero variance gives 0, not NaN.
    await check(new Tensor('float32', new Float32Array(12).fill(3), [2, 2, 3]), [1, 2], 'constant groups');
  });

  it('an axis out of range is a clear error', async () => {
    await expect(runKernel(meanVarianceNormalizationKernel, [randomTensor('float32', [2, 3], rng(1))], { opset: 13, attributes: { axes: [2] } })).rejects.toThrow(/axis 2 is out of range for rank 2/);
  });
});
