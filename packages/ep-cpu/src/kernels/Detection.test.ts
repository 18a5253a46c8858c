import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { nonMaxSuppressionKernel } from './NonMaxSuppression.js';
import { roiAlignKernel } from './RoiAlign.js';
import { asTensor, expectClose } from '../nn/test-helpers.js';

const selected = (v: unknown) => Array.from(asTensor(v as Tensor).data as BigInt64Array, Number);

describe('NonMaxSuppression', () => {
  // Box 1 lies inside box 0: IoU = 0.81 / 1 = 0.81; box 2 is disjoint.
  const boxes = new Tensor('float32', [0, 0, 1, 1, 0.1, 0.1, 1, 1, 2, 2, 3, 3], [1, 3, 4]);
  const scores = new Tensor('float32', [0.9, 0.8, 0.7], [1, 1, 3]);
  const int = (v: number) => new Tensor('int64', [BigInt(v)], [1]);
  const flt = (v: number) => new Tensor('float32', [v], [1]);

  it('suppresses by IoU, keeps by score order, limits per class', async () => {
    expect(selected((await runKernel(nonMaxSuppressionKernel, [boxes, scores, int(3), flt(0.5)]))[0])).toEqual([0, 0, 0, 0, 0, 2]);
    expect(selected((await runKernel(nonMaxSuppressionKernel, [boxes, scores, int(3), flt(0.85)]))[0])).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 2]);
    expect(selected((await runKernel(nonMaxSuppressionKernel, [boxes, scores, int(1), flt(0.5)]))[0])).toEqual([0, 0, 0]);
    expect(selected((await runKernel(nonMaxSuppressionKernel, [boxes, scores, int(3), flt(0.5), flt(0.75)]))[0])).toEqual([0, 0, 0]);
    expect(asTensor((await runKernel(nonMaxSuppressionKernel, [boxes, scores]))[0]).dims).toEqual([0, 3]);
  });

  it('center_point_box takes [x, y, w, h]', async () => {
    const centers = new Tensor('float32', [0.5, 0.5, 1, 1, 0.55, 0.55, 0.9, 0.9, 2.5, 2.5, 1, 1], [1, 3, 4]);
    expect(selected((await runKernel(nonMaxSuppressionKernel, [centers, scores, int(3), flt(0.5)], { attributes: { center_point_box: 1 } }))[0])).toEqual([0, 0, 0, 0, 0, 2]);
  });
});

describe('RoiAlign', () => {
  it('averages bilinear samples; a linear ramp gives the bin centre value', async () => {
    // X[h, w] = w: a ramp along W; with half_pixel the sample at x = c reads value c - 0.5 + 0.5 = c
    const W = 6;
    const X = new Tensor('float32', Array.from({ length: 4 * W }, (_, i) => i % W), [1, 1, 4, W]);
    const rois = new Tensor('float32', [1, 0, 5, 4], [1, 4]);
    const [y] = await runKernel(roiAlignKernel, [X, rois, new Tensor('int64', [0n], [1])], {
      opset: 16,
      attributes: { output_height: 1, output_width: 2, sampling_ratio: 2 },
    });
    // roi x ∈ [0.5, 4.5] after the half-pixel shift; bins [0.5, 2.5] and [2.5, 4.5], centres 1.5 and 3.5
    expectClose(y, [1, 1, 1, 2], [1.5, 3.5]);
    await expect(runKernel(roiAlignKernel, [X, rois, new Tensor('int64', [3n], [1])], { opset: 16 })).rejects.toThrow(/batch index/);
  });
});
