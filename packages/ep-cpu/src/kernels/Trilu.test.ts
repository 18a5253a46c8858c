import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { triluKernel } from './Trilu.js';
import { oneHotKernel } from './OneHot.js';
import { nonZeroKernel } from './NonZero.js';
import { compressKernel } from './Compress.js';
import { reverseSequenceKernel } from './ReverseSequence.js';

describe('Trilu', () => {
  it('upper and lower with k, on a batch', async () => {
    const x = i64(iota(9).map((v) => v + 1), [1, 3, 3]);
    expect(plain((await runKernel(triluKernel, [x]))[0]).data).toEqual([1, 2, 3, 0, 5, 6, 0, 0, 9]);
    expect(plain((await runKernel(triluKernel, [x, i64([-1], [])], { attributes: { upper: 0 } }))[0]).data).toEqual([0, 0, 0, 4, 0, 0, 7, 8, 0]);
    expect(plain((await runKernel(triluKernel, [x, i64([5], [])]))[0]).data).toEqual(new Array(9).fill(0));
  });

  it('matches the per-element rule on random batches, k and both triangles', async () => {
    for (let n = 0; n < 24; n++) {
      const [rows, cols] = [1 + (n % 5), 1 + ((n * 7) % 6)];
      const dims = [1 + (n % 3), rows, cols];
      const k = (n % 9) - 4;
      const upper = n % 2;
      const x = f32(iota(dims[0] * rows * cols).map((v) => v + 1), dims);
      const [y] = await runKernel(triluKernel, [x, i64([k], [])], { attributes: { upper } });
      const expected = Array.from(x.data, (v, at) => {
        const [i, j] = [Math.floor(at / cols) % rows, at % cols];
        return (upper ? j - i >= k : j - i <= k) ? v : 0;
      });
      expect(plain(y).data, `[${dims}] k ${k} upper ${upper}`).toEqual(expected);
    }
  });
});

describe('OneHot / NonZero / Compress / ReverseSequence', () => {
  it('OneHot with negative indices and an inner axis', async () => {
    const [o] = await runKernel(oneHotKernel, [i64([0, -1]), f32([3], []), f32([0, 5], [2])], { attributes: { axis: 0 } });
    expect(plain(o)).toEqual({ dims: [3, 2], data: [5, 0, 0, 0, 0, 5] });
  });

  it('NonZero lists coordinates row-major, treating -0 as zero', async () => {
    const [o] = await runKernel(nonZeroKernel, [f32([0, 2, -0, 3], [2, 2])]);
    expect(plain(o)).toEqual({ dims: [2, 2], data: [0, 1, 1, 1] });
    const b = new Tensor('bool', Uint8Array.from([1, 0, 1]), [3]);
    expect(plain((await runKernel(nonZeroKernel, [b]))[0])).toEqual({ dims: [1, 2], data: [0, 2] });
  });

  it('Compress along an axis and flattened, with a short condition', async () => {
    const x = f32(iota(6), [3, 2]);
    const cond = (v: number[]) => new Tensor('bool', Uint8Array.from(v), [v.length]);
    expect(plain((await runKernel(compressKernel, [x, cond([0, 1])], { attributes: { axis: 0 } }))[0])).toEqual({ dims: [1, 2], data: [2, 3] });
    expect(plain((await runKernel(compressKernel, [x, cond([1, 0, 0, 1])]))[0])).toEqual({ dims: [2], data: [0, 3] });
    await expect(runKernel(compressKernel, [x, cond([1, 1, 1, 1])], { attributes: { axis: 0 } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('ReverseSequence reverses each batch entry up to its length', async () => {
    const x = f32(iota(6), [2, 3]); // batch_axis 0, time_axis 1
    const [o] = await runKernel(reverseSequenceKernel, [x, i64([3, 2])], { attributes: { batch_axis: 0, time_axis: 1 } });
    expect(plain(o).data).toEqual([2, 1, 0, 4, 3, 5]);
    await expect(runKernel(reverseSequenceKernel, [x, i64([4, 1])], { attributes: { batch_axis: 0, time_axis: 1 } })).rejects.toMatchObject({
      code: 'RUNTIME',
    });
  });
});
