import { describe, expect, it } from 'vitest';
import { runKernel } from '@switchyard/core/testing';
import { f32 } from '../tensor-ops/test-util.js';
import { expectClose } from '../nn/test-helpers.js';
import { gridSampleKernel } from './GridSample.js';

// Expected values from torch.nn.functional.grid_sample (float64) via /usr/bin/python3, for
// X = [[1..4], [5..8], [9..12]] as [1, 1, 3, 4] and the grid below, rounded to 6 decimals.
const TORCH: Record<string, number[]> = {
  'bilinear/zeros/0': [0.25, 4.7, 0.779999, 0.0, 3.71, 6.37],
  'bilinear/zeros/1': [1.0, 5.35, 8.119999, 3.850001, 9.5175, 6.64],
  'bilinear/border/0': [1.0, 4.7, 12.0, 8.0, 10.6, 6.5],
  'bilinear/border/1': [1.0, 5.35, 11.6, 7.0, 10.575, 6.64],
  'bilinear/reflection/0': [1.0, 4.7, 12.0, 8.1, 10.6, 6.5],
  'bilinear/reflection/1': [1.0, 5.35, 11.3, 7.45, 10.175, 6.64],
  'nearest/zeros/0': [1.0, 3.0, 0.0, 0.0, 0.0, 8.0],
  'nearest/zeros/1': [1.0, 7.0, 12.0, 9.0, 11.0, 8.0],
  'nearest/border/0': [1.0, 3.0, 12.0, 9.0, 11.0, 8.0],
  'nearest/border/1': [1.0, 7.0, 12.0, 9.0, 11.0, 8.0],
  'nearest/reflection/0': [1.0, 3.0, 12.0, 9.0, 11.0, 8.0],
  'nearest/reflection/1': [1.0, 7.0, 12.0, 9.0, 11.0, 8.0],
  'bicubic/zeros/0': [0.015625, 4.784615, 0.697269, -0.557903, 3.760022, 6.300537],
  'bicubic/zeros/1': [1.0, 5.155486, 9.077535, 4.459502, 9.934025, 7.274342],
  'bicubic/border/0': [0.53125, 4.40675, 12.450375, 8.234375, 10.814875, 6.133547],
  'bicubic/border/1': [1.0, 4.944625, 11.80925, 7.272906, 10.799672, 6.390211],
  'bicubic/reflection/0': [0.0625, 4.40675, 12.75, 8.309625, 11.2585, 6.133841],
  'bicubic/reflection/1': [1.0, 4.656625, 11.8205, 8.008187, 10.498672, 6.360178],
};

describe('GridSample', () => {
  const x = f32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [1, 1, 3, 4]);
  const grid = f32([-1.0, -1.0, 0.3, -0.4, 1.2, 0.9, -1.3, 0.5, 0.05, 1.1, 0.76, -0.25], [1, 2, 3, 2]);

  for (const [key, expected] of Object.entries(TORCH)) {
    const [mode, padding_mode, align] = key.split('/');
    it(`matches PyTorch for ${mode}, ${padding_mode} padding, align_corners=${align}`, async () => {
      const [y] = await runKernel(gridSampleKernel, [x, grid], { attributes: { mode, padding_mode, align_corners: Number(align) } });
      expectClose(y, [1, 1, 2, 3], expected, 2e-6);
    });
  }

  it('samples every channel and batch entry at its own grid', async () => {
    const two = f32([1, 2, 3, 4, 10, 20, 30, 40], [2, 1, 2, 2]);
    const g = f32([-1, -1, 1, 1], [2, 1, 1, 2]); // batch 0 → top-left, batch 1 → bottom-right
    const [y] = await runKernel(gridSampleKernel, [two, g], { attributes: { align_corners: 1 } });
    expectClose(y, [2, 1, 1, 1], [1, 40]);
  });

  it('rejects bad shapes and attributes', async () => {
    await expect(runKernel(gridSampleKernel, [f32([1], [1, 1, 1]), grid])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(gridSampleKernel, [x, f32([0, 0, 0], [1, 1, 1, 3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(gridSampleKernel, [x, grid], { attributes: { mode: 'linear' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    await expect(runKernel(gridSampleKernel, [x, grid], { attributes: { padding_mode: 'wrap' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });
});
