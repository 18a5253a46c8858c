import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain, rng } from '../tensor-ops/test-util.js';
import { sliceKernel, sliceV1Kernel } from './Slice.js';

/** Python-slicing reference on one axis. */
function pyRange(d: number, start: number, end: number, step: number): number[] {
  const out: number[] = [];
  let s = start < 0 ? start + d : start;
  let e = end < 0 ? end + d : end;
  if (step > 0) {
    s = Math.min(Math.max(s, 0), d);
    e = Math.min(Math.max(e, 0), d);
    for (let i = s; i < e; i += step) out.push(i);
  } else {
    s = Math.min(Math.max(s, -1), d - 1);
    e = Math.min(Math.max(e, -1), d - 1);
    for (let i = s; i > e; i += step) out.push(i);
  }
  return out;
}

describe('Slice', () => {
  it('matches a Python-slicing reference on random 3-D slices with negative steps and clamping', async () => {
    const next = rng(11);
    const dims = [4, 5, 6];
    const x = f32(iota(120), dims);
    for (let trial = 0; trial < 40; trial++) {
      const starts = dims.map((d) => next(2 * d + 4) - d - 2);
      const ends = dims.map((d) => next(2 * d + 4) - d - 2);
      const steps = dims.map(() => (next(2) ? 1 : -1) * (1 + next(3)));
      const [out] = await runKernel(sliceKernel, [x, i64(starts), i64(ends), i64([0, 1, 2]), i64(steps)]);
      const ranges = dims.map((d, k) => pyRange(d, starts[k], ends[k], steps[k]));
      const want: number[] = [];
      for (const a of ranges[0]) for (const b of ranges[1]) for (const c of ranges[2]) want.push(a * 30 + b * 6 + c);
      expect(plain(out)).toEqual({ dims: ranges.map((r) => r.length), data: want });
    }
  });

  it('treats INT64_MAX/MIN ends as open ends, and takes int32 indices and negative axes', async () => {
    const x = f32(iota(10), [10]);
    const big = new Tensor('int64', BigInt64Array.from([9223372036854775807n]), [1]);
    expect(plain((await runKernel(sliceKernel, [x, i64([7]), big]))[0]).data).toEqual([7, 8, 9]);
    const small = new Tensor('int64', BigInt64Array.from([-9223372036854775808n]), [1]);
    expect(plain((await runKernel(sliceKernel, [x, i64([2]), small, i64([-1]), i64([-1])]))[0]).data).toEqual([2, 1, 0]);
    const i32 = (v: number[]) => new Tensor('int32', Int32Array.from(v), [v.length]);
    expect(plain((await runKernel(sliceKernel, [x, i32([1]), i32([4])]))[0]).data).toEqual([1, 2, 3]);
  });

  it('opset 1 reads starts/ends/axes attributes', async () => {
    const x = f32(iota(12), [3, 4]);
    const [out] = await runKernel(sliceV1Kernel, [x], { attributes: { starts: [1], ends: [3], axes: [1] }, opset: 1 });
    expect(plain(out)).toEqual({ dims: [3, 2], data: [1, 2, 5, 6, 9, 10] });
  });

  it('gives empty outputs and rejects step 0', async () => {
    const x = f32(iota(6), [2, 3]);
    expect(plain((await runKernel(sliceKernel, [x, i64([2]), i64([1]), i64([1])]))[0]).dims).toEqual([2, 0]);
    await expect(runKernel(sliceKernel, [x, i64([0]), i64([1]), i64([0]), i64([0])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
