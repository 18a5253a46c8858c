import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, plain } from '../tensor-ops/test-util.js';
import { expectClose } from '../nn/test-helpers.js';
import { detKernel } from './Det.js';
import { shrinkKernel } from './Shrink.js';
import { pReluKernel } from './PRelu.js';

describe('Det', () => {
  it('matches numpy.linalg.det on a batch, including a singular matrix and a needed row swap', async () => {
    // /usr/bin/python3: np.linalg.det([[[2,-1,0],[1,3,4],[0,5,-2]], [[1,2,3],[2,4,6],[7,8,9]]]) → [-54, 0]
    const [y] = await runKernel(detKernel, [f32([2, -1, 0, 1, 3, 4, 0, 5, -2, 1, 2, 3, 2, 4, 6, 7, 8, 9], [2, 3, 3])]);
    expectClose(y, [2], [-54, 0], 1e-6);
    // np.linalg.det([[0, 2], [3, 1]]) → -6 (the zero pivot forces a swap)
    expectClose((await runKernel(detKernel, [f32([0, 2, 3, 1], [2, 2])]))[0], [], [-6]);
  });

  it('rejects non-square input', async () => {
    await expect(runKernel(detKernel, [f32([1, 2, 3, 4, 5, 6], [2, 3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(detKernel, [f32([1], [1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('Shrink', () => {
  it('soft and hard shrink on floats and ints', async () => {
    const x = f32([-2, -1, -0.5, 0, 0.5, 1, 2], [7]);
    expectClose((await runKernel(shrinkKernel, [x], { attributes: { lambd: { float: 1.5 }, bias: { float: 1.5 } } }))[0], [7], [-0.5, 0, 0, 0, 0, 0, 0.5]);
    expectClose((await runKernel(shrinkKernel, [x], { attributes: { lambd: { float: 0.5 } } }))[0], [7], [-2, -1, 0, 0, 0, 1, 2]);
    const ints = new Tensor('int32', Int32Array.from([-5, -1, 0, 3]), [4]);
    expect(plain((await runKernel(shrinkKernel, [ints], { attributes: { lambd: { float: 2 }, bias: { float: 1 } } }))[0]).data).toEqual([-4, 0, 0, 2]);
    expect(plain((await runKernel(shrinkKernel, [i64([-5, 7])], { attributes: { lambd: { float: 2 }, bias: { float: 0.5 } } }))[0]).data).toEqual([-4, 6]);
  });
});

describe('PRelu before opset 7', () => {
  it('lines a [C] slope up with axis 1 (per channel)', async () => {
    // X [2, 3, 2]; slope per channel c: 0.1, 0.2, 0.3.
    const x = f32([-1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6], [2, 3, 2]);
    const [y] = await runKernel(pReluKernel, [x, f32([0.1, 0.2, 0.3], [3])], { opset: 6 });
    expectClose(y, [2, 3, 2], [-0.1, 1, -0.4, 2, -0.9, 3, -0.4, 4, -1, 5, -1.8, 6]);
    // From opset 7 the same slope would broadcast along the last axis (size 2 ≠ 3): an error.
    await expect(runKernel(pReluKernel, [x, f32([0.1, 0.2, 0.3], [3])], { opset: 7 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('still shares a one-element slope and rejects a slope of the wrong length', async () => {
    const x = f32([-1, 2, -3, 4], [1, 2, 2]);
    expectClose((await runKernel(pReluKernel, [x, f32([0.5], [1])], { opset: 6 }))[0], [1, 2, 2], [-0.5, 2, -1.5, 4]);
    await expect(runKernel(pReluKernel, [x, f32([0.5, 0.5, 0.5], [3])], { opset: 6 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
