import { describe, expect, it } from 'vitest';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { centerCropPadKernel } from './CenterCropPad.js';
import { col2ImKernel } from './Col2Im.js';
import { deformConvKernel } from './DeformConv.js';
import { gridSampleKernel } from './GridSample.js';
import { affineGridKernel } from './AffineGrid.js';
import { splitKernel } from './Split.js';

describe('CenterCropPad', () => {
  it('crops and pads one axis each, the odd element going to the end', async () => {
    // rows 0..4 cropped to 2 keep rows 1, 2; columns 0..1 padded to 5 sit at 1, 2
    const [y] = await runKernel(centerCropPadKernel, [f32(iota(10), [5, 2]), i64([2, 5])], { opset: 18 });
    expect(plain(y)).toEqual({ dims: [2, 5], data: [0, 2, 3, 0, 0, 0, 4, 5, 0, 0] });
  });

  it('refuses a huge or negative target before allocating', async () => {
    await expect(runKernel(centerCropPadKernel, [f32(iota(4), [2, 2]), i64([1e6, 1e6])], { opset: 18 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(centerCropPadKernel, [f32(iota(4), [2, 2]), i64([-1, 2])], { opset: 18 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(centerCropPadKernel, [f32(iota(4), [2, 2]), i64([2])], { opset: 18 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('Col2Im', () => {
  it('refuses a huge image and a column count that does not match the blocks', async () => {
    const x = f32(iota(4), [1, 4, 1]);
    await expect(runKernel(col2ImKernel, [x, i64([50000, 50000]), i64([1, 1])], { opset: 18 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(col2ImKernel, [x, i64([3, 3]), i64([2, 2])], { opset: 18 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(col2ImKernel, [x, i64([2, 2]), i64([2, 2])], { opset: 18, attributes: { strides: [0, 1] } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('sums overlapping 1-D blocks', async () => {
    // image of 3, blocks of 2 at stride 1: two positions; pixel 1 receives one value from each
    const [y] = await runKernel(col2ImKernel, [f32([1, 2, 10, 20], [1, 2, 2]), i64([3]), i64([2])], { opset: 18 });
    expect(plain(y)).toEqual({ dims: [1, 1, 3], data: [1, 12, 20] });
  });
});

describe('DeformConv', () => {
  it('with zero offsets is a plain convolution; refuses a wrong offset shape', async () => {
    const x = f32(iota(9), [1, 1, 3, 3]);
    const w = f32([1, 1, 1, 1], [1, 1, 2, 2]);
    const [y] = await runKernel(deformConvKernel, [x, w, f32(new Array(32).fill(0), [1, 8, 2, 2])], { opset: 19 });
    expect(plain(y)).toEqual({ dims: [1, 1, 2, 2], data: [8, 12, 20, 24] });
    await expect(runKernel(deformConvKernel, [x, w, f32(new Array(16).fill(0), [1, 4, 2, 2])], { opset: 19 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('moves a tap by a fractional offset with bilinear weights, zero outside the image', async () => {
    // 1×1 kernel, one output per pixel of a 1×2 image; offsets (dy, dx) = (0, 0.5) and (0, 1)
    const x = f32([2, 4], [1, 1, 1, 2]);
    const w = f32([1], [1, 1, 1, 1]);
    const offset = f32([0, 0, 0.5, 1], [1, 2, 1, 2]);
    const [y] = await runKernel(deformConvKernel, [x, w, offset], { opset: 19 });
    expect(plain(y).data).toEqual([3, 0]);
  });
});

describe('GridSample and AffineGrid opsets', () => {
  const x = f32(iota(4), [1, 1, 2, 2]);
  const grid = f32([0, 0], [1, 1, 1, 2]);

  it('takes the opset-16 mode names only at opset 16, and 2-D images only', async () => {
    await expect(runKernel(gridSampleKernel, [x, grid], { opset: 16, attributes: { mode: 'linear' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    await expect(runKernel(gridSampleKernel, [x, grid], { opset: 20, attributes: { mode: 'bilinear' } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const [a] = await runKernel(gridSampleKernel, [x, grid], { opset: 16, attributes: { mode: 'bilinear' } });
    const [b] = await runKernel(gridSampleKernel, [x, grid], { opset: 20 });
    expect(plain(a).data).toEqual([1.5]);
    expect(plain(b).data).toEqual([1.5]);
    const x3 = f32(iota(8), [1, 1, 2, 2, 2]);
    await expect(runKernel(gridSampleKernel, [x3, f32([0, 0, 0], [1, 1, 1, 1, 3])], { opset: 16 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    const [c] = await runKernel(gridSampleKernel, [x3, f32([0, 0, 0], [1, 1, 1, 1, 3])], { opset: 20 });
    expect(plain(c).data).toEqual([3.5]);
  });

  it('AffineGrid refuses a theta that does not fit size', async () => {
    await expect(runKernel(affineGridKernel, [f32(iota(6), [1, 2, 3]), i64([1, 1, 2, 2, 2])], { opset: 20 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('Split 18 num_outputs', () => {
  it('refuses num_outputs that disagrees with the outputs, and chunks that cannot fill them', async () => {
    await expect(runKernel(splitKernel, [f32(iota(6), [6])], { opset: 18, outputs: 2, attributes: { num_outputs: 3 } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    // 5 into 4 chunks of ceil(5/4) = 2 would need a last chunk of −1
    await expect(runKernel(splitKernel, [f32(iota(5), [5])], { opset: 18, outputs: 4, attributes: { num_outputs: 4 } })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    // without num_outputs (opset 13) uneven splits stay an error
    await expect(runKernel(splitKernel, [f32(iota(7), [7])], { opset: 13, outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
