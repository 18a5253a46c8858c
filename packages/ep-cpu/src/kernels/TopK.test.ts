import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain, rng } from '../tensor-ops/test-util.js';
import { topKKernel } from './TopK.js';
import { uniqueKernel } from './Unique.js';

describe('TopK', () => {
  it('largest and smallest, ties by lower index, along axis 0', async () => {
    const x = f32([3, 1, 3, 2, 1, 2], [3, 2]);
    const [v, i] = await runKernel(topKKernel, [x, i64([2])], { attributes: { axis: 0 }, outputs: 2 });
    expect(plain(v)).toEqual({ dims: [2, 2], data: [3, 2, 3, 2] }); // columns [3,3,1] and [1,2,2]
    expect(plain(i).data).toEqual([0, 1, 1, 2]);
    const [vs, is] = await runKernel(topKKernel, [x, i64([1])], { attributes: { axis: -1, largest: 0 }, outputs: 2 });
    expect(plain(vs).data).toEqual([1, 2, 1]);
    expect(plain(is).data).toEqual([1, 1, 0]);
  });

  it('agrees with a full sort on random data (selection and sort paths), int64 too', async () => {
    const next = rng(3);
    for (const n of [5, 100]) {
      const vals = Array.from({ length: n }, () => next(20));
      for (const k of [1, 3, n]) {
        const [v, i] = await runKernel(topKKernel, [i64(vals), i64([k])], { outputs: 2 });
        const order = iota(n).sort((a, b) => vals[b] - vals[a] || a - b).slice(0, k);
        expect(plain(i).data).toEqual(order);
        expect(plain(v).data).toEqual(order.map((j) => vals[j]));
      }
    }
  });

  it('opset 1 reads k from the attribute; k beyond the axis is an error', async () => {
    const [v] = await runKernel(topKKernel, [f32([1, 5, 2], [3])], { attributes: { k: 1 }, opset: 1, outputs: 2 });
    expect(plain(v).data).toEqual([5]);
    await expect(runKernel(topKKernel, [f32([1], [1]), i64([2])], { outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('Unique', () => {
  it('flattened, sorted: values, first indices, inverse and counts', async () => {
    const [y, idx, inv, cnt] = await runKernel(uniqueKernel, [f32([2, 1, 1, 3, 4, 3], [6])], { outputs: 4 });
    expect(plain(y).data).toEqual([1, 2, 3, 4]);
    expect(plain(idx).data).toEqual([1, 0, 3, 4]);
    expect(plain(inv).data).toEqual([1, 0, 0, 2, 3, 2]);
    expect(plain(cnt).data).toEqual([2, 1, 2, 1]);
  });

  it('unsorted keeps first-seen order; strings work', async () => {
    const s = new Tensor('string', ['b', 'a', 'b'], [3]);
    const [y, , inv] = await runKernel(uniqueKernel, [s], { attributes: { sorted: 0 }, outputs: 3 });
    expect(plain(y).data).toEqual(['b', 'a']);
    expect(plain(inv).data).toEqual([0, 1, 0]);
  });

  it('along an axis, slices are compared whole', async () => {
    const x = f32([1, 0, 1, 2, 0, 2], [2, 3]); // columns: [1,2], [0,0], [1,2]
    const [y, , inv, cnt] = await runKernel(uniqueKernel, [x], { attributes: { axis: 1 }, outputs: 4 });
    expect(plain(y)).toEqual({ dims: [2, 2], data: [0, 1, 0, 2] });
    expect(plain(inv).data).toEqual([1, 0, 1]);
    expect(plain(cnt).data).toEqual([1, 2]);
  });
});
