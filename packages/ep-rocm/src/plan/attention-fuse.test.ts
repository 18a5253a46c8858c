import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { D, H, N, S, attention, describePlan, interpret, seeded } from './attention-plan.test-util.js';
import { broadcastStrides } from './attention-fuse.js';

registerExecutionProvider(cpuFactory);

async function cpuReference(masked: boolean, x: Float32Array, m?: Float32Array): Promise<Float32Array> {
  const s = await InferenceSession.fromModel(buildModel(attention(1, masked)), { executionProviders: ['cpu'] });
  const feeds: Record<string, Tensor> = { x: new Tensor('float32', x, [1, S, N]) };
  if (m) feeds.m = new Tensor('float32', m, [1, S]);
  const out = await s.run(feeds);
  await s.release();
  return (out.y as Tensor).data as Float32Array;
}

describe('attention fuse', () => {
  it('turns Q·Kᵀ, Softmax and P·V into one Attention step over the folded views', () => {
    const d = describePlan(1, { attentionFuse: true });
    expect(d.steps.map((s) => s.op)).toEqual(['MatMulBias', 'Attention', 'MatMulBias']);
    const [qkv, fused] = d.steps;
    // Q, K and V are all the merged [S, 3N] projection (columns 0, N, 2N); the output [1, S, H, D].
    expect(fused.inputs.slice(0, 3)).toEqual([qkv.outputs[0], qkv.outputs[0], qkv.outputs[0]]);
    expect(fused.inputs[3]).toBe(-1);
    expect(fused.attrs).toEqual([H, S, S, D, 3 * N, D, 0, 3 * N, D, N, 3 * N, D, 2 * N, N, D, 0, 0, 0, 0, 1 / Math.fround(Math.sqrt(D))]);
  });

  it('computes what the CPU EP computes, at the description\'s offsets', async () => {
    const x = seeded(S * N, 11);
    const expected = await cpuReference(false, x);
    const got = interpret(describePlan(1, { attentionFuse: true }), x);
    expect(got.length).toBe(expected.length);
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 5));
  });

  it('takes in the additive mask, broadcast over heads and query rows', async () => {
    const d = describePlan(1, { attentionFuse: true, masked: true });
    const fused = d.steps.find((s) => s.op === 'Attention')!;
    expect(d.steps.map((s) => s.op)).not.toContain('Softmax');
    expect(fused.inputs[3]).toBeGreaterThanOrEqual(0);
    expect(d.buffers[fused.inputs[3]].dims).toEqual([1, 1, 1, S]);
    expect(fused.attrs.slice(16, 19)).toEqual([0, 0, 1]);
    const x = seeded(S * N, 12);
    const m = Float32Array.from({ length: S }, (_, i) => (i === 1 || i === 3 ? 0 : 1));
    const expected = await cpuReference(true, x, m);
    const got = interpret(d, x, m);
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 5));
    // The mask matters: without it the answer differs.
    const unmasked = await cpuReference(false, x);
    expect(got.some((v, i) => Math.abs(v - unmasked[i]) > 1e-3)).toBe(true);
  });

  it('leaves the chain alone when a score tensor is read elsewhere, at batch 2, or without the option', () => {
    expect(describePlan(1, { attentionFuse: true, exposeProbabilities: true }).steps.map((s) => s.op)).toContain('Softmax');
    expect(describePlan(2, { attentionFuse: true }).steps.map((s) => s.op)).not.toContain('Attention');
    expect(describePlan(1).steps.map((s) => s.op)).not.toContain('Attention');
  });

  it('reads a mask shape as strides over [heads, rows, cols], or declines it', () => {
    expect(broadcastStrides([1, 1, 1, 7], 2, 5, 7)).toEqual([0, 0, 1]);
    expect(broadcastStrides([7], 2, 5, 7)).toEqual([0, 0, 1]);
    expect(broadcastStrides([1, 2, 5, 7], 2, 5, 7)).toEqual([35, 7, 1]);
    expect(broadcastStrides([5, 1], 2, 5, 7)).toEqual([0, 1, 0]);
    expect(broadcastStrides([], 2, 5, 7)).toEqual([0, 0, 0]);
    expect(broadcastStrides([2, 1, 1, 7], 2, 5, 7)).toBeUndefined(); // batch 2
    expect(broadcastStrides([1, 1, 1, 6], 2, 5, 7)).toBeUndefined();
  });
});
