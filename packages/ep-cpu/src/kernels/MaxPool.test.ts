import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { maxPoolKernel } from './MaxPool.js';
import { averagePoolKernel } from './AveragePool.js';
import { lpPoolKernel } from './LpPool.js';
import { globalAveragePoolKernel } from './GlobalAveragePool.js';
import { globalMaxPoolKernel } from './GlobalMaxPool.js';
import { globalLpPoolKernel } from './GlobalLpPool.js';
import { asTensor, expectClose, f32 } from '../nn/test-helpers.js';

interface RefOpts { k: number[]; s?: number[]; d?: number[]; pads?: number[]; oH?: number; oW?: number; includePad?: boolean }

/** Naive 2-D pooling over [N, C, H, W] from the definitions; returns values, dims and argmax indices. */
function refPool(kind: 'max' | 'avg' | 'lp2', x: Float32Array, [N, C, H, W]: number[], o: RefOpts) {
  const [kH, kW] = o.k;
  const [sH, sW] = o.s ?? [1, 1];
  const [dH, dW] = o.d ?? [1, 1];
  const [pt, pl, pb, pr] = o.pads ?? [0, 0, 0, 0];
  const oH = o.oH ?? Math.floor((H + pt + pb - ((kH - 1) * dH + 1)) / sH) + 1;
  const oW = o.oW ?? Math.floor((W + pl + pr - ((kW - 1) * dW + 1)) / sW) + 1;
  const out: number[] = [];
  const idx: number[] = [];
  for (let p = 0; p < N * C; p++)
    for (let i = 0; i < oH; i++)
      for (let j = 0; j < oW; j++) {
        let best = -Infinity;
        let at = -1;
        let sum = 0;
        let n = 0;
        let padded = 0;
        for (let a = 0; a < kH; a++)
          for (let b = 0; b < kW; b++) {
            const h = i * sH - pt + a * dH;
            const w = j * sW - pl + b * dW;
            if (h >= -pt && h < H + pb && w >= -pl && w < W + pr) padded++;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            const v = x[p * H * W + h * W + w];
            if (v > best) [best, at] = [v, p * H * W + h * W + w];
            sum += kind === 'lp2' ? v * v : v;
            n++;
          }
        out.push(kind === 'max' ? best : kind === 'lp2' ? Math.sqrt(sum) : sum / (o.includePad ? padded : n));
        idx.push(at);
      }
  return { out, idx, dims: [N, C, oH, oW] };
}

describe('MaxPool', () => {
  it('strides, pads, dilations and Indices', async () => {
    const X = f32([2, 3, 9, 8], 1);
    const ref = refPool('max', X.data, [2, 3, 9, 8], { k: [3, 2], s: [2, 1], d: [1, 2], pads: [1, 0, 1, 1] });
    const [y, i] = await runKernel(maxPoolKernel, [X], {
      attributes: { kernel_shape: [3, 2], strides: [2, 1], dilations: [1, 2], pads: [1, 0, 1, 1] },
      outputs: 2,
    });
    expectClose(y, ref.dims, ref.out);
    expect(Array.from(asTensor(i).data as BigInt64Array, Number)).toEqual(ref.idx);
  });

  it('storage_order = 1 gives column-major spatial indices', async () => {
    const X = new Tensor('float32', [1, 9, 3, 4, 5, 16], [1, 1, 2, 3]);
    const [, i] = await runKernel(maxPoolKernel, [X], { attributes: { kernel_shape: [2, 2], storage_order: 1 }, outputs: 2 });
    // max of window (0,0) is 9 at (h=0, w=1) → 0 + 1*2 = 2; window (0,1) is 16 at (h=1, w=2) → 1 + 2*2 = 5
    expect(Array.from(asTensor(i).data as BigInt64Array, Number)).toEqual([2, 5]);
  });

  it('ceil_mode adds the partial last window but never one that starts in padding', async () => {
    const X = f32([1, 1, 5, 5], 2);
    const ref = refPool('max', X.data, [1, 1, 5, 5], { k: [2, 2], s: [2, 2], oH: 3, oW: 3 });
    expectClose((await runKernel(maxPoolKernel, [X], { attributes: { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 } }))[0], [1, 1, 3, 3], ref.out);
    // 4 + pad 1, k2 s2: ceil gives 3 windows, the third would start in the pad → dropped
    const Y = f32([1, 1, 4, 4], 3);
    const [z] = await runKernel(maxPoolKernel, [Y], { attributes: { kernel_shape: [2, 2], strides: [2, 2], pads: [0, 0, 1, 1], ceil_mode: 1 } });
    expect(asTensor(z).dims).toEqual([1, 1, 2, 2]);
  });

  it('SAME_UPPER on 1-D and uint8 data', async () => {
    const X = new Tensor('uint8', [3, 1, 4, 1, 5, 9, 2], [1, 1, 7]);
    const [y] = await runKernel(maxPoolKernel, [X], { attributes: { kernel_shape: [3], strides: [2], auto_pad: 'SAME_UPPER' } });
    // out = ceil(7/2) = 4, total pad = 3*2+3-7 = 2 → 1 each side: windows [-1..1], [1..3], [3..5], [5..7]
    expect(asTensor(y).type).toBe('uint8');
    expect(Array.from(asTensor(y).data as Uint8Array)).toEqual([3, 4, 9, 9]);
  });

  it('rejects a kernel larger than the input and zero strides', async () => {
    await expect(runKernel(maxPoolKernel, [f32([1, 1, 3, 3])], { attributes: { kernel_shape: [4, 4] } })).rejects.toThrow(/larger than padded input/);
    await expect(runKernel(maxPoolKernel, [f32([1, 1, 3, 3])], { attributes: { kernel_shape: [2, 2], strides: [0, 1] } })).rejects.toThrow(/strides/);
    await expect(runKernel(maxPoolKernel, [f32([3, 3])], { attributes: { kernel_shape: [2] } })).rejects.toThrow(/rank/);
  });
});

describe('AveragePool / LpPool', () => {
  it('count_include_pad on and off', async () => {
    const X = f32([1, 2, 6, 7], 4);
    const attrs = { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 2, 1, 0] };
    for (const includePad of [false, true]) {
      const ref = refPool('avg', X.data, [1, 2, 6, 7], { k: [3, 3], s: [2, 2], pads: [1, 2, 1, 0], includePad });
      const [y] = await runKernel(averagePoolKernel, [X], { attributes: { ...attrs, count_include_pad: includePad ? 1 : 0 } });
      expectClose(y, ref.dims, ref.out);
    }
  });

  it('3-D average equals the mean of each block', async () => {
    const X = f32([1, 1, 2, 2, 4], 5);
    const [y] = await runKernel(averagePoolKernel, [X], { attributes: { kernel_shape: [2, 2, 2], strides: [2, 2, 2] } });
    const d = X.data;
    const block = (w0: number) => [0, 1].flatMap((a) => [0, 1].flatMap((b) => [0, 1].map((c) => d[a * 8 + b * 4 + w0 + c])));
    expectClose(y, [1, 1, 1, 1, 2], [block(0), block(2)].map((b) => b.reduce((s, v) => s + v, 0) / 8));
  });

  it('LpPool p=2', async () => {
    const X = f32([1, 2, 5, 5], 6);
    const ref = refPool('lp2', X.data, [1, 2, 5, 5], { k: [2, 3], pads: [1, 1, 0, 0] });
    expectClose((await runKernel(lpPoolKernel, [X], { attributes: { kernel_shape: [2, 3], pads: [1, 1, 0, 0], p: 2 } }))[0], ref.dims, ref.out);
  });
});

describe('global pools', () => {
  it('average, max and Lp over each plane', async () => {
    const X = f32([2, 3, 4, 5], 7);
    const planes = Array.from({ length: 6 }, (_, p) => Array.from(X.data.subarray(p * 20, p * 20 + 20)));
    expectClose((await runKernel(globalAveragePoolKernel, [X]))[0], [2, 3, 1, 1], planes.map((p) => p.reduce((a, b) => a + b, 0) / 20));
    expectClose((await runKernel(globalMaxPoolKernel, [X]))[0], [2, 3, 1, 1], planes.map((p) => Math.max(...p)));
    expectClose((await runKernel(globalLpPoolKernel, [X], { attributes: { p: 1 } }))[0], [2, 3, 1, 1], planes.map((p) => p.reduce((a, b) => a + Math.abs(b), 0)));
  });
});
