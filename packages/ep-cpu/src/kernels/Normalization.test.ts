import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { batchNormalizationKernel } from './BatchNormalization.js';
import { layerNormalizationKernel } from './LayerNormalization.js';
import { instanceNormalizationKernel } from './InstanceNormalization.js';
import { lrnKernel } from './LRN.js';
import { meanVarianceNormalizationKernel } from './MeanVarianceNormalization.js';
import { lpNormalizationKernel } from './LpNormalization.js';
import { dropoutKernel } from './Dropout.js';
import { asTensor, expectClose, f32 } from '../nn/test-helpers.js';

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const variance = (v: number[]) => mean(v.map((x) => (x - mean(v)) ** 2));
/** Normalizes each group of `size` consecutive values. */
const normalize = (v: number[], eps: number) => v.map((x) => (x - mean(v)) / Math.sqrt(variance(v) + eps));

describe('BatchNormalization', () => {
  const X = f32([2, 3, 2, 2], 1);
  const scale = new Tensor('float32', [1, 2, 0.5], [3]);
  const bias = new Tensor('float32', [0, -1, 2], [3]);
  const m = new Tensor('float32', [0.1, -0.2, 0.3], [3]);
  const v = new Tensor('float32', [1, 0.5, 2], [3]);
  it('inference uses the running statistics', async () => {
    const [y] = await runKernel(batchNormalizationKernel, [X, scale, bias, m, v], { attributes: { epsilon: { float: 0.01 } }, opset: 15 });
    const expected = Array.from(X.data, (x, i) => {
      const c = Math.floor(i / 4) % 3;
      return ((x - m.data[c]) / Math.sqrt(v.data[c] + 0.01)) * scale.data[c] + bias.data[c];
    });
    expectClose(y, [2, 3, 2, 2], expected);
  });

  it('training mode uses batch statistics and updates running ones', async () => {
    const [y, rm, rv] = await runKernel(batchNormalizationKernel, [X, scale, bias, m, v], { attributes: { training_mode: 1, momentum: { float: 0.8 } }, opset: 15, outputs: 3 });
    const perChannel = [0, 1, 2].map((c) => [0, 1].flatMap((n) => Array.from(X.data.subarray((n * 3 + c) * 4, (n * 3 + c) * 4 + 4))));
    const expected = Array.from(X.data, (x, i) => {
      const c = Math.floor(i / 4) % 3;
      return ((x - mean(perChannel[c])) / Math.sqrt(variance(perChannel[c]) + 1e-5)) * scale.data[c] + bias.data[c];
    });
    expectClose(y, [2, 3, 2, 2], expected);
    expectClose(rm, [3], perChannel.map((p, c) => m.data[c] * 0.8 + mean(p) * 0.2));
    expectClose(rv, [3], perChannel.map((p, c) => v.data[c] * 0.8 + variance(p) * 0.2));
  });
});

describe('LayerNormalization / InstanceNormalization / MVN', () => {
  it('LayerNormalization over the last two dims, with Mean and InvStdDev', async () => {
    const X = f32([2, 3, 4], 2);
    const S = f32([3, 4], 3);
    const B = f32([4], 4);
    const [y, mu, inv] = await runKernel(layerNormalizationKernel, [X, S, B], { attributes: { axis: 1 }, outputs: 3 });
    const rows = [0, 1].map((o) => Array.from(X.data.subarray(o * 12, o * 12 + 12)));
    const expected = rows.flatMap((r) => normalize(r, 1e-5).map((z, i) => z * S.data[i] + B.data[i % 4]));
    expectClose(y, [2, 3, 4], expected);
    expectClose(mu, [2, 1, 1], rows.map(mean));
    expectClose(inv, [2, 1, 1], rows.map((r) => 1 / Math.sqrt(variance(r) + 1e-5)));
  });

  it('InstanceNormalization per plane', async () => {
    const X = f32([2, 2, 5], 5);
    const scale = new Tensor('float32', [2, 3], [2]);
    const bias = new Tensor('float32', [1, -1], [2]);
    const [y] = await runKernel(instanceNormalizationKernel, [X, scale, bias], { attributes: { epsilon: { float: 1e-3 } } });
    const planes = [0, 1, 2, 3].map((p) => Array.from(X.data.subarray(p * 5, p * 5 + 5)));
    expectClose(y, [2, 2, 5], planes.flatMap((p, i) => normalize(p, 1e-3).map((z) => z * scale.data[i % 2] + bias.data[i % 2])));
  });

  it('MeanVarianceNormalization over default axes [0, 2, 3]', async () => {
    const X = f32([2, 2, 2, 2], 6);
    const [y] = await runKernel(meanVarianceNormalizationKernel, [X], { opset: 13 });
    const byC = [0, 1].map((c) => [0, 1].flatMap((n) => Array.from(X.data.subarray((n * 2 + c) * 4, (n * 2 + c) * 4 + 4))));
    const expected = Array.from(X.data, (x, i) => {
      const c = Math.floor(i / 4) % 2;
      return (x - mean(byC[c])) / (Math.sqrt(variance(byC[c])) + 1e-9);
    });
    expectClose(y, [2, 2, 2, 2], expected);
  });
});

describe('LRN / LpNormalization / Dropout', () => {
  it('LRN sums squares over neighbouring channels', async () => {
    const X = f32([1, 5, 1, 2], 7);
    const [y] = await runKernel(lrnKernel, [X], { attributes: { size: 3, alpha: { float: 0.2 }, beta: { float: 0.5 }, bias: { float: 2 } } });
    const at = (c: number, s: number) => X.data[c * 2 + s];
    const expected = Array.from(X.data, (x, i) => {
      const c = Math.floor(i / 2);
      let sq = 0;
      for (let cc = Math.max(0, c - 1); cc <= Math.min(4, c + 1); cc++) sq += at(cc, i % 2) ** 2;
      return x / (2 + (0.2 / 3) * sq) ** 0.5;
    });
    expectClose(y, [1, 5, 1, 2], expected);
  });

  it('LpNormalization p=1 and p=2', async () => {
    const X = new Tensor('float32', [3, 4, 0, 0, 1, -1], [3, 2]);
    expectClose((await runKernel(lpNormalizationKernel, [X]))[0], [3, 2], [0.6, 0.8, 0, 0, 1 / Math.SQRT2, -1 / Math.SQRT2]);
    expectClose((await runKernel(lpNormalizationKernel, [X], { attributes: { p: 1, axis: 0 } }))[0], [3, 2], [0.75, 0.8, 0, 0, 0.25, -0.2]);
  });

  it('Dropout is the identity with an all-true mask in inference', async () => {
    const X = f32([3, 4], 8);
    const [y, mask] = await runKernel(dropoutKernel, [X, new Tensor('float32', [0.7], [])], { outputs: 2, opset: 13 });
    expect(Array.from(asTensor(y).data as Float32Array)).toEqual(Array.from(X.data));
    expect(asTensor(mask).type).toBe('bool');
    expect(Array.from(asTensor(mask).data as Uint8Array).every((b) => b === 1)).toBe(true);
  });

  it('Dropout in training zeroes about `ratio` and rescales the rest', async () => {
    const X = new Tensor('float32', new Float32Array(4000).fill(1), [4000]);
    const [y, mask] = await runKernel(dropoutKernel, [X, new Tensor('float32', [0.25], []), new Tensor('bool', [1], [])], { outputs: 2, opset: 13, attributes: { seed: 3 } });
    const yd = asTensor(y).data as Float32Array;
    const md = asTensor(mask).data as Uint8Array;
    const kept = md.reduce((a, b) => a + b, 0);
    expect(kept / 4000).toBeGreaterThan(0.7);
    expect(kept / 4000).toBeLessThan(0.8);
    for (let i = 0; i < 4000; i++) expect(yd[i]).toBeCloseTo(md[i] ? 1 / 0.75 : 0, 5);
    await expect(runKernel(dropoutKernel, [X, new Tensor('float32', [1.5], []), new Tensor('bool', [1], [])], { opset: 13 })).rejects.toThrow(/ratio/);
  });
});
