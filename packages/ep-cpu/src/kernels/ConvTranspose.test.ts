import { describe, expect, it } from 'vitest';
import { runKernel } from '@switchyard/core/testing';
import { convTransposeKernel } from './ConvTranspose.js';
import { maxUnpoolKernel } from './MaxUnpool.js';
import { maxPoolKernel } from './MaxPool.js';
import { asTensor, expectClose, f32 } from '../nn/test-helpers.js';

/** Naive transposed convolution from its definition: every input pixel scatters w·x into the output. */
function refConvTranspose(x: Float32Array, [N, C, H, W]: number[], w: Float32Array, [, Mg, kH, kW]: number[], group: number, s: number[], d: number[], pads: number[], outPad = [0, 0]) {
  const oH = s[0] * (H - 1) + outPad[0] + (kH - 1) * d[0] + 1 - pads[0] - pads[2];
  const oW = s[1] * (W - 1) + outPad[1] + (kW - 1) * d[1] + 1 - pads[1] - pads[3];
  const M = Mg * group;
  const Cg = C / group;
  const out = new Array<number>(N * M * oH * oW).fill(0);
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++)
      for (let h = 0; h < H; h++)
        for (let ww = 0; ww < W; ww++)
          for (let m = 0; m < Mg; m++)
            for (let i = 0; i < kH; i++)
              for (let j = 0; j < kW; j++) {
                const oh = h * s[0] + i * d[0] - pads[0];
                const ow = ww * s[1] + j * d[1] - pads[1];
                if (oh < 0 || oh >= oH || ow < 0 || ow >= oW) continue;
                const mm = Math.floor(c / Cg) * Mg + m;
                out[((n * M + mm) * oH + oh) * oW + ow] += x[((n * C + c) * H + h) * W + ww] * w[((c * Mg + m) * kH + i) * kW + j];
              }
  return { out, dims: [N, M, oH, oW] };
}

describe('ConvTranspose', () => {
  it('matches the scatter definition with groups, strides, dilations, pads and output_padding', async () => {
    const X = f32([2, 4, 3, 4], 1);
    const W = f32([4, 3, 3, 2], 2);
    const ref = refConvTranspose(X.data, [2, 4, 3, 4], W.data, [4, 3, 3, 2], 2, [2, 3], [1, 2], [1, 0, 0, 1], [1, 2]);
    const [y] = await runKernel(convTransposeKernel, [X, W], {
      attributes: { group: 2, strides: [2, 3], dilations: [1, 2], pads: [1, 0, 0, 1], output_padding: [1, 2] },
    });
    expectClose(y, ref.dims, ref.out);
  });

  it('output_shape fixes the size and rejects impossible pads', async () => {
    const X = f32([1, 1, 3, 3], 3);
    const W = f32([1, 2, 3, 3], 4);
    const full = refConvTranspose(X.data, [1, 1, 3, 3], W.data, [1, 2, 3, 3], 1, [2, 2], [1, 1], [0, 0, 0, 0]);
    const [y] = await runKernel(convTransposeKernel, [X, W], { attributes: { strides: [2, 2], output_shape: [7, 7] } });
    expectClose(y, [1, 2, 7, 7], full.out);
    await expect(runKernel(convTransposeKernel, [X, W], { attributes: { pads: [4, 4, 4, 4] } })).rejects.toThrow(/empty/);
    await expect(runKernel(convTransposeKernel, [X, W], { attributes: { strides: [0, 1] } })).rejects.toThrow(/strides/);
  });
});

describe('MaxUnpool', () => {
  it('inverts MaxPool: the maxima return to their positions, zeros elsewhere', async () => {
    const X = f32([1, 2, 4, 4], 5);
    const [pooled, idx] = await runKernel(maxPoolKernel, [X], { attributes: { kernel_shape: [2, 2], strides: [2, 2] }, outputs: 2 });
    const [y] = await runKernel(maxUnpoolKernel, [pooled, idx], { attributes: { kernel_shape: [2, 2], strides: [2, 2] }, opset: 11 });
    const yd = asTensor(y).data as Float32Array;
    const expected = new Array<number>(32).fill(0);
    const id = asTensor(idx).data as BigInt64Array;
    (asTensor(pooled).data as Float32Array).forEach((v, i) => (expected[Number(id[i])] = v));
    expect(Array.from(yd)).toEqual(expected);
    for (let p = 0; p < 8; p++) expect(yd.filter((v) => v !== 0).length).toBe(8);
  });
});
