import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { reshapeDims, reshapeKernel, reshapeV1Kernel } from './Reshape.js';
import { flattenKernel } from './Flatten.js';
import { squeezeKernel, squeezeV1Kernel } from './Squeeze.js';
import { unsqueezeKernel, unsqueezeV1Kernel } from './Unsqueeze.js';

describe('reshapeDims', () => {
  it('copies 0s, infers -1 and honours allowzero', () => {
    expect(reshapeDims([2, 3, 4], [0, -1], false)).toEqual([2, 12]);
    expect(reshapeDims([0, 3, 4], [3, 4, 0], true)).toEqual([3, 4, 0]);
    expect(reshapeDims([0, 3], [-1, 3], false)).toEqual([0, 3]);
    expect(reshapeDims([], [1, 1], false)).toEqual([1, 1]);
  });

  it('rejects impossible shapes with INVALID_SHAPE', () => {
    for (const [dims, shape, az] of [
      [[2, 3], [4, -1], false],
      [[2, 3], [-1, -1], false],
      [[2, 3], [7], false],
      [[2, 3], [0, 0, 0], false],
      [[2, 3], [-2, 3], false],
      [[0, 3], [0, -1], true],
    ] as Array<[number[], number[], boolean]>) {
      expect(() => reshapeDims(dims, shape, az)).toThrow(SwitchyardError);
    }
  });
});

describe('Reshape and friends', () => {
  it('Reshape copies data into the new shape (int64, strings)', async () => {
    const [out] = await runKernel(reshapeKernel, [i64([1, 2, 3, 4, 5, 6], [2, 3]), i64([3, -1])]);
    expect(plain(out)).toEqual({ dims: [3, 2], data: [1, 2, 3, 4, 5, 6] });
    const s = new Tensor('string', ['a', 'b', 'c', 'd'], [4]);
    const [outS] = await runKernel(reshapeKernel, [s, i64([2, 2])]);
    expect(plain(outS)).toEqual({ dims: [2, 2], data: ['a', 'b', 'c', 'd'] });
  });

  it('Reshape-1 reads the shape attribute', async () => {
    const [out] = await runKernel(reshapeV1Kernel, [f32(iota(6), [2, 3])], { attributes: { shape: [3, -1] }, opset: 1 });
    expect(plain(out)).toEqual({ dims: [3, 2], data: iota(6) });
  });

  it('Reshape refuses a shape that does not fit', async () => {
    await expect(runKernel(reshapeKernel, [f32(iota(6), [6]), i64([4])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('Flatten with negative and zero axes', async () => {
    const x = f32(iota(24), [2, 3, 4]);
    expect(plain((await runKernel(flattenKernel, [x], { attributes: { axis: -1 } }))[0]).dims).toEqual([6, 4]);
    expect(plain((await runKernel(flattenKernel, [x], { attributes: { axis: 0 } }))[0]).dims).toEqual([1, 24]);
    await expect(runKernel(flattenKernel, [x], { attributes: { axis: 4 } })).rejects.toThrow(/axis 4/);
  });

  it('Squeeze: all ones, negative axes, attribute form, and a non-1 axis error', async () => {
    const x = f32(iota(6), [1, 2, 1, 3]);
    expect(plain((await runKernel(squeezeKernel, [x]))[0]).dims).toEqual([2, 3]);
    expect(plain((await runKernel(squeezeKernel, [x, i64([-2])]))[0]).dims).toEqual([1, 2, 3]);
    expect(plain((await runKernel(squeezeV1Kernel, [x], { attributes: { axes: [0] }, opset: 11 }))[0]).dims).toEqual([2, 1, 3]);
    await expect(runKernel(squeezeKernel, [x, i64([1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('Unsqueeze: unsorted and negative axes, attribute form, duplicate error', async () => {
    const x = f32(iota(6), [2, 3]);
    expect(plain((await runKernel(unsqueezeKernel, [x, i64([3, 0])]))[0]).dims).toEqual([1, 2, 3, 1]);
    expect(plain((await runKernel(unsqueezeKernel, [x, i64([-1])]))[0]).dims).toEqual([2, 3, 1]);
    expect(plain((await runKernel(unsqueezeV1Kernel, [x], { attributes: { axes: [1] }, opset: 11 }))[0]).dims).toEqual([2, 1, 3]);
    await expect(runKernel(unsqueezeKernel, [x, i64([0, -4])])).rejects.toThrow(/repeat/);
  });
});

describe('Squeeze with an empty axes input', () => {
  it('removes every size-1 dim, as with no axes', async () => {
    const x = f32(iota(3), [1, 3, 1]);
    expect(plain((await runKernel(squeezeKernel, [x, i64([])]))[0]).dims).toEqual([3]);
  });
});
