import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { padKernel, padV2Kernel } from './Pad.js';
import { expandKernel } from './Expand.js';
import { tileKernel } from './Tile.js';

describe('Pad', () => {
  const x = f32([1, 2, 3], [1, 3]);
  it('constant, reflect and edge on the last axis', async () => {
    const pads = i64([0, 2, 0, 2]);
    const run = (mode: string, extra: Tensor[] = []) => runKernel(padKernel, [x, pads, ...extra], { attributes: { mode } });
    expect(plain((await run('constant', [f32([9], [])]))[0]).data).toEqual([9, 9, 1, 2, 3, 9, 9]);
    expect(plain((await run('reflect'))[0]).data).toEqual([3, 2, 1, 2, 3, 2, 1]);
    expect(plain((await run('edge'))[0]).data).toEqual([1, 1, 1, 2, 3, 3, 3]);
  });

  it('pads outer axes, crops with negative pads, and reads opset-2 attributes', async () => {
    const [out] = await runKernel(padKernel, [x, i64([1, -1, 0, 0])]);
    expect(plain(out)).toEqual({ dims: [2, 2], data: [0, 0, 2, 3] });
    const [v2] = await runKernel(padV2Kernel, [x], { attributes: { pads: [0, 1, 0, 0], value: { float: 5 } }, opset: 2 });
    expect(plain(v2).data).toEqual([5, 1, 2, 3]);
  });

  it('pads int64 and float16 with the right storage value', async () => {
    const [o] = await runKernel(padV2Kernel, [i64([4])], { attributes: { pads: [1, 0], value: { float: 2 } }, opset: 2 });
    expect(plain(o).data).toEqual([2, 4]);
    const h = new Tensor('float16', Uint16Array.from([0x3c00]), [1]);
    const [oh] = await runKernel(padV2Kernel, [h], { attributes: { pads: [0, 1], value: { float: 2 } }, opset: 2 });
    expect(plain(oh).data).toEqual([0x3c00, 0x4000]);
  });

  it('rejects bad pads', async () => {
    await expect(runKernel(padKernel, [x, i64([0, 0])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(padKernel, [x, i64([0, -4, 0, 0])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('Expand / Tile', () => {
  it('Expand broadcasts both ways', async () => {
    const [out] = await runKernel(expandKernel, [f32([1, 2, 3], [3, 1]), i64([2, 1, 2])]);
    expect(plain(out)).toEqual({ dims: [2, 3, 2], data: [1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3] });
    const [keep] = await runKernel(expandKernel, [f32([1, 2], [2]), i64([1])]);
    expect(plain(keep)).toEqual({ dims: [2], data: [1, 2] });
  });

  it('Expand rejects incompatible dims and absurd sizes without allocating', async () => {
    await expect(runKernel(expandKernel, [f32([1, 2], [2]), i64([3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(expandKernel, [f32([1], [1]), i64([1e6, 1e6, 1e6])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('Tile repeats every axis; zero repeats give empty outputs', async () => {
    const [out] = await runKernel(tileKernel, [f32(iota(4), [2, 2]), i64([2, 3])]);
    const t = plain(out);
    expect(t.dims).toEqual([4, 6]);
    expect(t.data.slice(0, 6)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(t.data.slice(12, 18)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(plain((await runKernel(tileKernel, [f32(iota(4), [2, 2]), i64([0, 1])]))[0]).dims).toEqual([0, 2]);
    await expect(runKernel(tileKernel, [f32(iota(4), [2, 2]), i64([1e5, 1e5])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
