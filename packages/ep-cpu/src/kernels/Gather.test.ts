import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { gatherKernel } from './Gather.js';
import { gatherElementsKernel } from './GatherElements.js';
import { gatherNDKernel } from './GatherND.js';
import { scatterElementsKernel } from './ScatterElements.js';
import { scatterNDKernel } from './ScatterND.js';

describe('Gather', () => {
  it('gathers rows along axis 1 with negative and int32 indices', async () => {
    const x = f32(iota(12), [3, 4]);
    const [out] = await runKernel(gatherKernel, [x, i64([-1, 0], [1, 2])], { attributes: { axis: 1 } });
    expect(plain(out)).toEqual({ dims: [3, 1, 2], data: [3, 0, 7, 4, 11, 8] });
    const idx32 = new Tensor('int32', Int32Array.from([2]), []);
    expect(plain((await runKernel(gatherKernel, [x, idx32]))[0])).toEqual({ dims: [4], data: [8, 9, 10, 11] });
  });

  it('gathers strings', async () => {
    const s = new Tensor('string', ['x', 'y', 'z'], [3]);
    expect(plain((await runKernel(gatherKernel, [s, i64([2, 2, 0])]))[0]).data).toEqual(['z', 'z', 'x']);
  });

  it('rejects out-of-range indices with RUNTIME', async () => {
    await expect(runKernel(gatherKernel, [f32(iota(3), [3]), i64([3])])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(gatherKernel, [f32(iota(3), [3]), i64([-4])])).rejects.toMatchObject({ code: 'RUNTIME' });
  });
});

describe('GatherElements / ScatterElements', () => {
  it('GatherElements picks per element, with indices smaller than data', async () => {
    const x = f32(iota(9), [3, 3]);
    const [out] = await runKernel(gatherElementsKernel, [x, i64([2, 0, -1, 1], [2, 2])], { attributes: { axis: 1 } });
    expect(plain(out)).toEqual({ dims: [2, 2], data: [2, 0, 5, 4] });
    await expect(runKernel(gatherElementsKernel, [x, i64([3], [1, 1])], { attributes: { axis: 0 } })).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('ScatterElements writes, adds, multiplies, and handles int64 data', async () => {
    const data = f32([1, 2, 3, 4, 5], [1, 5]);
    const idx = i64([1, 1], [1, 2]);
    const upd = f32([10, 20], [1, 2]);
    const run = (reduction: string) => runKernel(scatterElementsKernel, [data, idx, upd], { attributes: { axis: 1, reduction } });
    expect(plain((await run('add'))[0]).data).toEqual([1, 32, 3, 4, 5]);
    expect(plain((await run('mul'))[0]).data).toEqual([1, 400, 3, 4, 5]);
    const big = i64([1, 2, 3], [3]);
    const [o] = await runKernel(scatterElementsKernel, [big, i64([-1], [1]), i64([9], [1])]);
    expect(plain(o).data).toEqual([1, 2, 9]);
    // The input is left alone.
    expect(Array.from(data.data)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('GatherND / ScatterND', () => {
  it('GatherND with batch_dims', async () => {
    const x = f32(iota(8), [2, 2, 2]);
    const [out] = await runKernel(gatherNDKernel, [x, i64([1, 0], [2, 1])], { attributes: { batch_dims: 1 } });
    expect(plain(out)).toEqual({ dims: [2, 2], data: [2, 3, 4, 5] });
    const [full] = await runKernel(gatherNDKernel, [x, i64([0, 1, 1, 1, 0, 0], [2, 3])]);
    expect(plain(full)).toEqual({ dims: [2], data: [3, 4] });
    await expect(runKernel(gatherNDKernel, [x, i64([2], [1, 1])])).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('ScatterND replaces slices and checks the updates shape', async () => {
    const data = f32(iota(6), [3, 2]);
    const [out] = await runKernel(scatterNDKernel, [data, i64([2, 0], [2, 1]), f32([7, 8, 9, 10], [2, 2])]);
    expect(plain(out).data).toEqual([9, 10, 2, 3, 7, 8]);
    const [add] = await runKernel(scatterNDKernel, [data, i64([1, 1], [2, 1]), f32([1, 1, 1, 1], [2, 2])], { attributes: { reduction: 'add' } });
    expect(plain(add).data).toEqual([0, 1, 4, 5, 4, 5]);
    await expect(runKernel(scatterNDKernel, [data, i64([0], [1, 1]), f32([1], [1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
