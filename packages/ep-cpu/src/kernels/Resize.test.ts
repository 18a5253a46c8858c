import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { resizeKernel } from './Resize.js';
import { upsampleKernel } from './Upsample.js';
import { asTensor, expectClose } from '../nn/test-helpers.js';

const img = new Tensor('float32', [1, 2, 3, 4], [1, 1, 2, 2]);
const none = undefined;

describe('Resize', () => {
  it('nearest ×2 (asymmetric, floor) repeats pixels', async () => {
    const [y] = await runKernel(resizeKernel, [img, none, new Tensor('float32', [1, 1, 2, 2], [4])], {
      opset: 13,
      attributes: { coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
    });
    expectClose(y, [1, 1, 4, 4], [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4]);
  });

  it('linear with align_corners interpolates between the corners', async () => {
    const [y] = await runKernel(resizeKernel, [img, none, none, new Tensor('int64', [1n, 1n, 3n, 3n], [4])], {
      opset: 13,
      attributes: { mode: 'linear', coordinate_transformation_mode: 'align_corners' },
    });
    expectClose(y, [1, 1, 3, 3], [1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4]);
  });

  it('linear half_pixel on a 1-D row: (x + 0.5) / 2 - 0.5, clamped at the edges', async () => {
    const row = new Tensor('float32', [0, 10], [2]);
    const [y] = await runKernel(resizeKernel, [row, none, new Tensor('float32', [2], [1])], { opset: 13, attributes: { mode: 'linear' } });
    // source coords -0.25, 0.25, 0.75, 1.25 → 0, 2.5, 7.5, 10
    expectClose(y, [4], [0, 2.5, 7.5, 10]);
  });

  it('cubic on a constant image keeps the constant (weights sum to 1)', async () => {
    const flat = new Tensor('float32', new Float32Array(16).fill(3), [1, 1, 4, 4]);
    const [y] = await runKernel(resizeKernel, [flat, none, new Tensor('float32', [1, 1, 1.5, 0.5], [4])], { opset: 13, attributes: { mode: 'cubic' } });
    expectClose(y, [1, 1, 6, 2], new Array(12).fill(3));
  });

  it('nearest works for any element type, and rejects both scales and sizes', async () => {
    const ints = new Tensor('int64', [1n, 2n], [1, 2]);
    const [y] = await runKernel(resizeKernel, [ints, none, new Tensor('float32', [1, 2], [2])], { opset: 13 });
    expect(Array.from(asTensor(y).data as BigInt64Array)).toEqual([1n, 1n, 2n, 2n]);
    await expect(runKernel(resizeKernel, [img, none, new Tensor('float32', [1, 1, 2, 2], [4]), new Tensor('int64', [1n, 1n, 4n, 4n], [4])], { opset: 13 })).rejects.toThrow(/not both/);
    await expect(runKernel(resizeKernel, [img, none, new Tensor('float32', [1, 1, 0, 2], [4])], { opset: 13 })).rejects.toThrow(/positive/);
    await expect(runKernel(resizeKernel, [img, none, new Tensor('float32', [1, 1, 1e6, 1e6], [4])], { opset: 13 })).rejects.toThrow(/elements/);
  });

  it('Upsample (opset 9) nearest', async () => {
    const [y] = await runKernel(upsampleKernel, [img, new Tensor('float32', [1, 1, 1, 2], [4])], { opset: 9 });
    expectClose(y, [1, 1, 2, 4], [1, 1, 2, 2, 3, 3, 4, 4]);
  });
});
