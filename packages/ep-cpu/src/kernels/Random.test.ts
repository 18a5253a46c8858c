import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64 } from '../tensor-ops/test-util.js';
import { asTensor } from '../nn/test-helpers.js';
import { randomUniformKernel } from './RandomUniform.js';
import { randomUniformLikeKernel } from './RandomUniformLike.js';
import { randomNormalKernel } from './RandomNormal.js';
import { randomNormalLikeKernel } from './RandomNormalLike.js';
import { bernoulliKernel } from './Bernoulli.js';
import { multinomialKernel } from './Multinomial.js';

const values = (v: unknown) => Array.from(asTensor(v as Tensor).data as ArrayLike<number | bigint>, Number);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const variance = (v: number[]) => {
  const m = mean(v);
  return mean(v.map((x) => (x - m) ** 2));
};

// Statistical bounds are ~6 standard errors wide, and seeds are fixed, so these never flake.
describe('random generators', () => {
  it('RandomUniform: in [low, high), mean and variance of U(low, high), reproducible with a seed', async () => {
    const attrs = { shape: [100, 100], low: { float: -2 }, high: { float: 3 }, seed: { float: 7 } };
    const [a] = await runKernel(randomUniformKernel, [], { attributes: attrs });
    const v = values(a);
    expect(asTensor(a).dims).toEqual([100, 100]);
    expect(Math.min(...v)).toBeGreaterThanOrEqual(-2);
    expect(Math.max(...v)).toBeLessThan(3);
    expect(Math.abs(mean(v) - 0.5)).toBeLessThan(0.09); // σ/√n = 5/√12/100
    expect(Math.abs(variance(v) - 25 / 12)).toBeLessThan(0.12);
    expect(values((await runKernel(randomUniformKernel, [], { attributes: attrs }))[0])).toEqual(v);
    expect(values((await runKernel(randomUniformKernel, [], { attributes: { ...attrs, seed: { float: 8 } } }))[0])).not.toEqual(v);
  });

  it('RandomNormal: mean and scale, float64 via dtype', async () => {
    const [a] = await runKernel(randomNormalKernel, [], { attributes: { shape: [20000], mean: { float: 1.5 }, scale: { float: 2 }, dtype: 11, seed: { float: 1 } } });
    expect(asTensor(a).type).toBe('float64');
    const v = values(a);
    expect(Math.abs(mean(v) - 1.5)).toBeLessThan(0.09); // 6 · 2/√20000
    expect(Math.abs(Math.sqrt(variance(v)) - 2)).toBeLessThan(0.07);
  });

  it('the Like variants take the input shape and (without dtype) its float type', async () => {
    const [u] = await runKernel(randomUniformLikeKernel, [new Tensor('float64', new Float64Array(6), [2, 3])], { attributes: { seed: { float: 3 } } });
    expect(asTensor(u).type).toBe('float64');
    expect(asTensor(u).dims).toEqual([2, 3]);
    const [n] = await runKernel(randomNormalLikeKernel, [i64([1, 2, 3], [3])], { attributes: { dtype: 1 } });
    expect(asTensor(n).type).toBe('float32');
    await expect(runKernel(randomNormalLikeKernel, [i64([1], [1])])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(runKernel(randomUniformKernel, [], { attributes: { shape: [2], low: { float: 1 }, high: { float: 0 } } })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
  });

  it('Bernoulli: p = 0 and 1 are exact, other p match in frequency, output dtype follows dtype', async () => {
    const p = new Float32Array(4000);
    for (let i = 0; i < p.length; i++) p[i] = i % 4 === 0 ? 0 : i % 4 === 1 ? 1 : 0.3;
    const [y] = await runKernel(bernoulliKernel, [new Tensor('float32', p, [4000])], { attributes: { seed: { float: 5 }, dtype: 9 } });
    expect(asTensor(y).type).toBe('bool');
    const v = values(y);
    expect(v.filter((_, i) => i % 4 === 0).every((b) => b === 0)).toBe(true);
    expect(v.filter((_, i) => i % 4 === 1).every((b) => b === 1)).toBe(true);
    expect(Math.abs(mean(v.filter((_, i) => i % 4 >= 2)) - 0.3)).toBeLessThan(0.062); // 6·√(0.21/2000)
    await expect(runKernel(bernoulliKernel, [f32([0.5, 1.5], [2])])).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('Multinomial: samples follow softmax(logits); a class with −∞ is never drawn', async () => {
    const logits = f32([Math.log(1), Math.log(3), -Infinity, 0, 0, 50], [2, 3]);
    const [y] = await runKernel(multinomialKernel, [logits], { attributes: { sample_size: 4000, seed: { float: 2 }, dtype: 7 } });
    expect(asTensor(y).type).toBe('int64');
    expect(asTensor(y).dims).toEqual([2, 4000]);
    const v = values(y);
    const row0 = v.slice(0, 4000);
    expect(row0.includes(2)).toBe(false);
    expect(Math.abs(mean(row0.map((c) => (c === 1 ? 1 : 0))) - 0.75)).toBeLessThan(0.041); // 6·√(0.1875/4000)
    expect(v.slice(4000).every((c) => c === 2)).toBe(true); // e^50 dominates
    await expect(runKernel(multinomialKernel, [f32([1, 2], [2])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(multinomialKernel, [logits], { attributes: { dtype: 1 } })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
});
