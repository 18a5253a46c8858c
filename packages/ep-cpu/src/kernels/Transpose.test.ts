import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, iota, plain } from '../tensor-ops/test-util.js';
import { transposeKernel } from './Transpose.js';
import { depthToSpaceKernel } from './DepthToSpace.js';
import { spaceToDepthKernel } from './SpaceToDepth.js';

describe('Transpose', () => {
  it('reverses axes by default and follows perm', async () => {
    const x = f32(iota(6), [2, 3]);
    expect(plain((await runKernel(transposeKernel, [x]))[0])).toEqual({ dims: [3, 2], data: [0, 3, 1, 4, 2, 5] });
    const y = f32(iota(24), [2, 3, 4]);
    const out = plain((await runKernel(transposeKernel, [y], { attributes: { perm: [1, 2, 0] } }))[0]);
    expect(out.dims).toEqual([3, 4, 2]);
    // out[i][j][k] = y[k][i][j]
    expect(out.data[(1 * 4 + 2) * 2 + 1]).toBe(1 * 12 + 1 * 4 + 2);
  });

  it('moves strings, bool and scalars', async () => {
    const s = new Tensor('string', ['a', 'b', 'c', 'd', 'e', 'f'], [3, 2]);
    expect(plain((await runKernel(transposeKernel, [s]))[0]).data).toEqual(['a', 'c', 'e', 'b', 'd', 'f']);
    const b = new Tensor('bool', Uint8Array.from([1, 0, 0, 1]), [2, 2]);
    expect(plain((await runKernel(transposeKernel, [b]))[0]).data).toEqual([1, 0, 0, 1]);
    expect(plain((await runKernel(transposeKernel, [f32([5], [])]))[0])).toEqual({ dims: [], data: [5] });
  });

  it('rejects a bad perm', async () => {
    await expect(runKernel(transposeKernel, [f32(iota(6), [2, 3])], { attributes: { perm: [0, 0] } })).rejects.toMatchObject({
      code: 'INVALID_SHAPE',
    });
  });

  it('large transposes match the definition (tiled path)', async () => {
    const [R, C] = [130, 70];
    const x = f32(iota(R * C), [R, C]);
    const out = (await runKernel(transposeKernel, [x]))[0] as Tensor<'float32'>;
    for (const [i, j] of [[0, 0], [69, 129], [33, 64], [5, 100]]) expect(out.data[i * R + j]).toBe(j * C + i);
  });
});

describe('DepthToSpace / SpaceToDepth', () => {
  it('SpaceToDepth then DepthToSpace (DCR) is the identity', async () => {
    const x = f32(iota(2 * 3 * 4 * 6), [2, 3, 4, 6]);
    const [d] = await runKernel(spaceToDepthKernel, [x], { attributes: { blocksize: 2 } });
    expect(plain(d).dims).toEqual([2, 12, 2, 3]);
    const [back] = await runKernel(depthToSpaceKernel, [d as Tensor], { attributes: { blocksize: 2, mode: 'DCR' } });
    expect(plain(back)).toEqual(plain(x));
  });

  it('CRD places channel-major blocks', async () => {
    // One output channel, blocksize 2: input channels are the 4 positions of each 2×2 block.
    const x = f32([1, 2, 3, 4], [1, 4, 1, 1]);
    const [y] = await runKernel(depthToSpaceKernel, [x], { attributes: { blocksize: 2, mode: 'CRD' } });
    expect(plain(y)).toEqual({ dims: [1, 1, 2, 2], data: [1, 2, 3, 4] });
  });

  it('rejects indivisible shapes', async () => {
    await expect(runKernel(depthToSpaceKernel, [f32(iota(3), [1, 3, 1, 1])], { attributes: { blocksize: 2 } })).rejects.toMatchObject({
      code: 'INVALID_SHAPE',
    });
  });
});
