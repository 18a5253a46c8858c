import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { D, H, N, S, attention, describePlan, interpret, seeded } from './attention-plan.test-util.js';

registerExecutionProvider(cpuFactory);

describe('attention fold (batch 1)', () => {
  it('runs Q/K/V as one GEMM and the head products as strided GEMMs, without a Transpose', () => {
    const d = describePlan(1);
    expect(d.steps.map((s) => s.op)).toEqual(['MatMulBias', 'MatMulStrided', 'Softmax', 'MatMulStrided', 'MatMulBias']);
    const [qkv, scores, , context] = d.steps;
    expect(d.buffers[qkv.outputs[0]].dims).toEqual([1, S, 3 * N]);
    // Q at column 0 and K at column N of the merged [S, 3N] output, ld 3N; Kᵀ read transposed; ÷√D as alpha.
    expect(scores.attrs).toEqual([0, 1, S, S, D, 3 * N, 3 * N, S, H, D, D, S * S, 0, N, 0, 1 / Math.fround(Math.sqrt(D))]);
    // V at column 2N; each head's [S, D] block written into [1, S, H, D] (ld N, heads D apart).
    expect(context.attrs).toEqual([0, 0, S, D, S, S, 3 * N, N, H, S * S, D, D, 0, 2 * N, 0, 1]);
  });

  it('computes what the CPU EP computes, at the description\'s offsets', async () => {
    const x = seeded(S * N, 9);
    const s = await InferenceSession.fromModel(buildModel(attention(1)), { executionProviders: ['cpu'] });
    const out = await s.run({ x: new Tensor('float32', x, [1, S, N]) });
    const expected = (out.y as Tensor).data as Float32Array;
    await s.release();
    const got = interpret(describePlan(1), x);
    expect(got.length).toBe(expected.length);
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 5));
  });

  it('leaves batch 2 and a plan built without the option as they were', () => {
    expect(describePlan(2).steps.map((s) => s.op)).toContain('Transpose');
    expect(describePlan(1, { attentionFold: false }).steps.filter((s) => s.op === 'Transpose')).toHaveLength(4);
  });
});
