import { describe, expect, it } from 'vitest';
import { Tensor, float16BitsToFloat32, float32ToFloat16Bits } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { convKernel } from './Conv.js';
import { expectClose, f32, seeded } from '../nn/test-helpers.js';

/** Naive 2-D convolution written straight from the ONNX definition (explicit pads). */
function refConv2d(
  x: Float32Array, [N, C, H, W]: number[], w: Float32Array, [M, Cg, kH, kW]: number[], b: Float32Array | undefined,
  { group = 1, strides = [1, 1], dil = [1, 1], pads = [0, 0, 0, 0] } = {},
): { out: number[]; dims: number[] } {
  const oH = Math.floor((H + pads[0] + pads[2] - (dil[0] * (kH - 1) + 1)) / strides[0]) + 1;
  const oW = Math.floor((W + pads[1] + pads[3] - (dil[1] * (kW - 1) + 1)) / strides[1]) + 1;
  const out: number[] = [];
  const mg = M / group;
  for (let n = 0; n < N; n++)
    for (let m = 0; m < M; m++)
      for (let oh = 0; oh < oH; oh++)
        for (let ow = 0; ow < oW; ow++) {
          let s = b ? b[m] : 0;
          const g = Math.floor(m / mg);
          for (let c = 0; c < Cg; c++)
            for (let i = 0; i < kH; i++)
              for (let j = 0; j < kW; j++) {
                const ih = oh * strides[0] - pads[0] + i * dil[0];
                const iw = ow * strides[1] - pads[1] + j * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += x[((n * C + g * Cg + c) * H + ih) * W + iw] * w[((m * Cg + c) * kH + i) * kW + j];
              }
          out.push(s);
        }
  return { out, dims: [N, M, oH, oW] };
}

describe('Conv', () => {
  const cases: Array<{ name: string; x: number[]; w: number[]; attrs: Record<string, number | number[]> }> = [
    { name: 'plain 3x3', x: [2, 3, 7, 6], w: [4, 3, 3, 3], attrs: {} },
    { name: 'pads + strides', x: [1, 2, 9, 8], w: [5, 2, 3, 2], attrs: { pads: [1, 0, 2, 1], strides: [2, 3] } },
    { name: 'dilations', x: [1, 3, 10, 10], w: [2, 3, 3, 3], attrs: { dilations: [2, 3], pads: [1, 1, 1, 1] } },
    { name: 'groups', x: [1, 4, 6, 6], w: [6, 2, 3, 3], attrs: { group: 2, pads: [1, 1, 1, 1] } },
    { name: 'depthwise', x: [2, 4, 7, 5], w: [8, 1, 3, 3], attrs: { group: 4, pads: [1, 2, 0, 1], strides: [2, 1], dilations: [1, 2] } },
    { name: 'pointwise', x: [2, 6, 5, 4], w: [3, 6, 1, 1], attrs: {} },
    { name: 'large (blocked GEMM)', x: [1, 20, 20, 20], w: [33, 20, 3, 3], attrs: { pads: [1, 1, 1, 1] } },
  ];
  for (const c of cases) {
    it(`matches a naive loop: ${c.name}`, async () => {
      const X = f32(c.x, 1);
      const W = f32(c.w, 2);
      const B = f32([c.w[0]], 3);
      const a = c.attrs as { group?: number; strides?: number[]; dilations?: number[]; pads?: number[] };
      const ref = refConv2d(X.data, c.x, W.data, c.w, B.data, { group: a.group, strides: a.strides, dil: a.dilations, pads: a.pads });
      const [y] = await runKernel(convKernel, [X, W, B], { attributes: c.attrs });
      expectClose(y, ref.dims, ref.out);
    });
  }

  it('1-D and 3-D convolutions agree with the 2-D reference on unit dims', async () => {
    const x = seeded(2 * 3 * 11, 4);
    const w = seeded(4 * 3 * 3, 5);
    const ref = refConv2d(x, [2, 3, 1, 11], w, [4, 3, 1, 3], undefined, { strides: [1, 2], pads: [0, 1, 0, 1] });
    const [y1] = await runKernel(convKernel, [new Tensor('float32', x, [2, 3, 11]), new Tensor('float32', w, [4, 3, 3])], {
      attributes: { strides: [2], pads: [1, 1] },
    });
    expectClose(y1, [2, 4, ref.dims[3]], ref.out);
    const [y3] = await runKernel(convKernel, [new Tensor('float32', x, [2, 3, 1, 1, 11]), new Tensor('float32', w, [4, 3, 1, 1, 3])], {
      attributes: { strides: [1, 1, 2], pads: [0, 0, 1, 0, 0, 1] },
    });
    expectClose(y3, [2, 4, 1, 1, ref.dims[3]], ref.out);
  });

  it('auto_pad SAME_UPPER / SAME_LOWER put the odd pad at the end / start', async () => {
    const X = f32([1, 1, 5, 5], 7);
    const W = f32([1, 1, 2, 2], 8);
    const up = refConv2d(X.data, [1, 1, 5, 5], W.data, [1, 1, 2, 2], undefined, { pads: [0, 0, 1, 1] });
    const low = refConv2d(X.data, [1, 1, 5, 5], W.data, [1, 1, 2, 2], undefined, { pads: [1, 1, 0, 0] });
    expectClose((await runKernel(convKernel, [X, W], { attributes: { auto_pad: 'SAME_UPPER' } }))[0], [1, 1, 5, 5], up.out);
    expectClose((await runKernel(convKernel, [X, W], { attributes: { auto_pad: 'SAME_LOWER' } }))[0], [1, 1, 5, 5], low.out);
    const valid = refConv2d(X.data, [1, 1, 5, 5], W.data, [1, 1, 2, 2], undefined, { strides: [2, 2] });
    expectClose((await runKernel(convKernel, [X, W], { attributes: { auto_pad: 'VALID', strides: [2, 2] } }))[0], valid.dims, valid.out);
  });

  it('float64 and float16 inputs', async () => {
    const x = seeded(1 * 2 * 4 * 4, 9);
    const w = seeded(3 * 2 * 3 * 3, 10);
    const ref = refConv2d(x, [1, 2, 4, 4], w, [3, 2, 3, 3], undefined, { pads: [1, 1, 1, 1] });
    const [y] = await runKernel(convKernel, [new Tensor('float64', Float64Array.from(x), [1, 2, 4, 4]), new Tensor('float64', Float64Array.from(w), [3, 2, 3, 3])], {
      attributes: { pads: [1, 1, 1, 1] },
    });
    expect((y as Tensor).type).toBe('float64');
    expectClose(y, ref.dims, ref.out, 1e-9);
  });

  it('float16 computes in float32 and rounds the result to half precision', async () => {
    const x = seeded(2 * 5 * 5, 11);
    const w = seeded(3 * 2 * 3 * 3, 12);
    const half = (a: Float32Array) => Uint16Array.from(a, (v) => float32ToFloat16Bits(v));
    // the reference sees the same half-rounded inputs
    const xr = Float32Array.from(half(x), float16BitsToFloat32);
    const wr = Float32Array.from(half(w), float16BitsToFloat32);
    const ref = refConv2d(xr, [1, 2, 5, 5], wr, [3, 2, 3, 3], undefined);
    const [y] = await runKernel(convKernel, [new Tensor('float16', half(x), [1, 2, 5, 5]), new Tensor('float16', half(w), [3, 2, 3, 3])]);
    expect((y as Tensor).type).toBe('float16');
    const got = Array.from((y as Tensor).data as Uint16Array, float16BitsToFloat32);
    expect(got.length).toBe(ref.out.length);
    got.forEach((v, i) => expect(Math.abs(v - ref.out[i])).toBeLessThan(2e-3 * (1 + Math.abs(ref.out[i]))));
  });

  it('rejects absurd attributes with clear errors', async () => {
    const X = f32([1, 1, 3, 3]);
    const W = f32([1, 1, 5, 5]);
    await expect(runKernel(convKernel, [X, W])).rejects.toThrow(/larger than padded input/);
    await expect(runKernel(convKernel, [X, f32([1, 1, 2, 2])], { attributes: { strides: [0, 1] } })).rejects.toThrow(/strides/);
    await expect(runKernel(convKernel, [X, f32([1, 1, 2, 2])], { attributes: { pads: [-1, 0, 0, 0] } })).rejects.toThrow(/pads/);
    await expect(runKernel(convKernel, [X, f32([1, 2, 2, 2])])).rejects.toThrow(/channels/);
    await expect(runKernel(convKernel, [X, f32([2, 1, 2, 2])], { attributes: { group: 3 } })).rejects.toThrow(/group/);
  });
});
