import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { Tensor, encodeModel } from '@switchyard/core';
import { buildModel, runKernel, type PlainAttribute } from '@switchyard/core/testing';
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

/**
 * The opset 18/19 additions (antialias, axes, keep_aspect_ratio_policy, half_pixel_symmetric) are newer than
 * the ONNX 1.12 backend data, so onnxruntime-node is their reference here. It differs from ONNX's
 * reference (and this kernel, which the 1.12 data checks) for align_corners with a fractional in · scale,
 * where it divides by the rounded output length: those cases use sizes or whole-number lengths.
 */
describe('Resize 18/19 against onnxruntime-node', () => {
  const random = (n: number, seed: number) => {
    let s = seed >>> 0;
    return Float32Array.from({ length: n }, () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return (s / 2 ** 32) * 2 - 1;
    });
  };
  const cases: Array<{ name: string; dims: number[]; attributes: Record<string, PlainAttribute>; scales?: number[]; sizes?: number[]; roi?: number[]; opset?: number }> = [
    { name: 'antialias linear, downsampling by 0.6', dims: [1, 1, 4, 4], attributes: { mode: 'linear', antialias: 1 }, scales: [1, 1, 0.6, 0.6] },
    { name: 'antialias linear, odd sizes', dims: [2, 3, 17, 23], attributes: { mode: 'linear', antialias: 1 }, scales: [1, 1, 0.37, 0.51] },
    { name: 'antialias cubic', dims: [2, 3, 17, 23], attributes: { mode: 'cubic', antialias: 1 }, scales: [1, 1, 0.37, 0.51] },
    { name: 'antialias cubic, one axis up and one down', dims: [1, 2, 9, 13], attributes: { mode: 'cubic', antialias: 1 }, scales: [1, 1, 1.7, 0.3] },
    { name: 'antialias cubic, exclude_outside', dims: [1, 2, 9, 13], attributes: { mode: 'cubic', antialias: 1, exclude_outside: 1, cubic_coeff_a: { float: -0.5 } }, scales: [1, 1, 0.45, 0.3] },
    { name: 'antialias linear, asymmetric', dims: [1, 2, 9, 13], attributes: { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'asymmetric' }, scales: [1, 1, 0.45, 0.3] },
    { name: 'antialias linear, pytorch_half_pixel by sizes', dims: [1, 2, 9, 13], attributes: { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'pytorch_half_pixel' }, sizes: [1, 2, 4, 3] },
    { name: 'antialias linear, align_corners by sizes', dims: [1, 2, 9, 13], attributes: { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'align_corners' }, sizes: [1, 2, 4, 5] },
    { name: 'antialias cubic, tf_crop_and_resize', dims: [1, 2, 9, 13], attributes: { mode: 'cubic', antialias: 1, coordinate_transformation_mode: 'tf_crop_and_resize' }, sizes: [1, 2, 4, 5], roi: [0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7] },
    { name: 'axes with sizes', dims: [1, 2, 9, 13], attributes: { mode: 'linear', axes: [3, 2] }, sizes: [5, 7] },
    { name: 'negative axes with scales', dims: [1, 2, 9, 13], attributes: { mode: 'nearest', axes: [-1] }, scales: [2.5] },
    { name: 'keep_aspect_ratio_policy not_larger', dims: [1, 2, 9, 13], attributes: { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' }, sizes: [7, 7] },
    { name: 'keep_aspect_ratio_policy not_smaller', dims: [1, 2, 9, 13], attributes: { mode: 'cubic', axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' }, sizes: [20, 20] },
    { name: 'tf_crop_and_resize on listed axes', dims: [1, 2, 9, 13], attributes: { mode: 'linear', coordinate_transformation_mode: 'tf_crop_and_resize', axes: [3, 2], extrapolation_value: { float: 5 } }, sizes: [6, 8], roi: [0.2, -0.1, 1.3, 0.8] },
    { name: 'half_pixel_symmetric linear (19)', dims: [1, 2, 9, 13], attributes: { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' }, scales: [1, 1, 1.7, 0.45], opset: 19 },
    { name: 'half_pixel_symmetric nearest (19)', dims: [1, 2, 9, 13], attributes: { mode: 'nearest', coordinate_transformation_mode: 'half_pixel_symmetric' }, scales: [1, 1, 1.7, 0.45], opset: 19 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const opset = c.opset ?? 18;
      const x = new Tensor('float32', random(c.dims.reduce((a, b) => a * b, 1), 7), c.dims);
      const roi = c.roi ? new Tensor('float32', c.roi, [c.roi.length]) : undefined;
      const scales = c.scales ? new Tensor('float32', c.scales, [c.scales.length]) : undefined;
      const sizes = c.sizes ? new Tensor('int64', c.sizes.map(BigInt), [c.sizes.length]) : undefined;
      const [y] = await runKernel(resizeKernel, [x, roi, scales, sizes], { opset, attributes: c.attributes });
      const initializers: Record<string, Tensor> = {};
      const names = ['x', '', '', ''];
      if (roi) initializers[(names[1] = 'roi')] = roi;
      if (scales) initializers[(names[2] = 'scales')] = scales;
      if (sizes) initializers[(names[3] = 'sizes')] = sizes;
      while (names[names.length - 1] === '') names.pop();
      const model = buildModel({ inputs: [['x', 'float32', c.dims]], outputs: [['y', 'float32']], initializers, nodes: [{ op: 'Resize', inputs: names, outputs: ['y'], attributes: c.attributes }], opset });
      const session = await ort.InferenceSession.create(encodeModel(model));
      const want = (await session.run({ x: new ort.Tensor('float32', x.data as Float32Array, c.dims) })).y;
      expectClose(y, [...want.dims], Array.from(want.data as Float32Array), 1e-5);
      await session.release();
    });
  }
});
