/**
 * ConvDwPrimitive (1x1 conv fused with the 3x3 depthwise conv after it) against the unfused path:
 * the same 1x1 and depthwise convs as two ConvPrimitives, on seeded data, blocked and plain, both
 * strides, odd sizes, with and without biases; and its argument checks.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelBlock, ConvDwPrimitiveOptions, NativeActivation } from './binding.js';
import { blockedDims } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.ConvDwPrimitive && native.binding.preferredChannelBlock ? native.binding : undefined;
const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

interface Case {
  c: number;
  m: number;
  h: number;
  w: number;
  stride: 1 | 2;
  bias: boolean;
  act: NativeActivation;
  dwAct: NativeActivation;
  block: ChannelBlock;
}

/** Runs the case fused and unfused; returns both outputs (in the case's layout) and the fused implementation. */
function runBoth(k: Case, threads: number): { fused: Float32Array; unfused: Float32Array; implementation: string } {
  const b = binding!;
  const weights = seededFloats(k.m * k.c, 1, 0.5);
  const bias = k.bias ? seededFloats(k.m, 2, 0.2) : undefined;
  const dwWeights = seededFloats(k.m * 9, 3, 0.5);
  const dwBias = k.bias ? seededFloats(k.m, 4, 0.2) : undefined;
  const clip = (a: NativeActivation) => (a === 'clip' ? { alpha: 0, beta: 0.5 } : a === 'leakyRelu' ? { alpha: 0.1, beta: 0 } : { alpha: 0, beta: 0 });
  const options: ConvDwPrimitiveOptions = {
    inputDims: [1, k.c, k.h, k.w], channels: k.m, stride: k.stride, weights, bias, dwWeights, dwBias,
    activation: k.act, activationAlpha: clip(k.act).alpha, activationBeta: clip(k.act).beta,
    dwActivation: k.dwAct, dwActivationAlpha: clip(k.dwAct).alpha, dwActivationBeta: clip(k.dwAct).beta,
    threads, srcBlock: k.block, dstBlock: k.block,
  };
  const fusedPrimitive = new b.ConvDwPrimitive!(options);
  const pointwise = new b.ConvPrimitive({
    inputDims: [1, k.c, k.h, k.w], weightDims: [k.m, k.c, 1, 1], hasBias: k.bias, weights, bias,
    activation: k.act, activationAlpha: options.activationAlpha, activationBeta: options.activationBeta, threads, srcBlock: k.block, dstBlock: k.block,
  });
  const depthwise = new b.ConvPrimitive({
    inputDims: [1, k.m, k.h, k.w], weightDims: [k.m, 1, 3, 3], group: k.m, strides: [k.stride, k.stride], padsBegin: [1, 1], padsEnd: [1, 1],
    hasBias: k.bias, weights: dwWeights, bias: dwBias,
    activation: k.dwAct, activationAlpha: options.dwActivationAlpha, activationBeta: options.dwActivationBeta, threads, srcBlock: k.block, dstBlock: k.block,
  });
  try {
    const outDims = [1, k.m, Math.ceil(k.h / k.stride), Math.ceil(k.w / k.stride)];
    expect(fusedPrimitive.outputDims).toEqual(outDims);
    expect(depthwise.outputDims).toEqual(outDims);
    const x = seededFloats(size(blockedDims([1, k.c, k.h, k.w], k.block)), 5, 2);
    const mid = new Float32Array(size(blockedDims([1, k.m, k.h, k.w], k.block)));
    const fused = new Float32Array(size(blockedDims(outDims, k.block))).fill(Number.NaN);
    const unfused = new Float32Array(fused.length);
    fusedPrimitive.runSync(x, fused);
    pointwise.runSync(x, null, null, mid);
    depthwise.runSync(mid, null, null, unfused);
    return { fused, unfused, implementation: fusedPrimitive.implementation };
  } finally {
    fusedPrimitive.dispose();
    pointwise.dispose();
    depthwise.dispose();
  }
}

function expectClose(actual: Float32Array, expected: Float32Array, tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])))) throw new Error(`[${i}]: ${actual[i]} fused vs ${expected[i]} unfused`);
  }
}

describe.skipIf(!binding)('ConvDwPrimitive (1x1 + depthwise 3x3 fused)', () => {
  const block = (binding?.preferredChannelBlock?.() ?? 8) as ChannelBlock;
  const cases: Case[] = [
    { c: 16, m: 96, h: 20, w: 20, stride: 2, bias: true, act: 'clip', dwAct: 'clip', block },
    { c: 24, m: 144, h: 14, w: 14, stride: 1, bias: true, act: 'clip', dwAct: 'clip', block },
    // Odd sizes: the stride-2 output is ceil(H / 2); channels (20) that leave padding lanes in the last block.
    { c: 12, m: 20, h: 9, w: 7, stride: 2, bias: false, act: 'relu', dwAct: 'none', block },
    { c: 8, m: 40, h: 5, w: 11, stride: 1, bias: true, act: 'leakyRelu', dwAct: 'relu', block },
    { c: 6, m: 16, h: 8, w: 8, stride: 1, bias: true, act: 'none', dwAct: 'clip', block: 0 },
  ];
  for (const k of cases) {
    for (const threads of [1, 2]) {
      it(`matches the unfused convs: ${k.c}→${k.m} ${k.h}x${k.w} stride ${k.stride}, ${k.act}/${k.dwAct}, block ${k.block}, ${threads} thread(s)`, () => {
        const r = runBoth(k, threads);
        expect(r.implementation).not.toMatch(/^ref:/);
        expectClose(r.fused, r.unfused);
        expect(r.fused.some(Number.isNaN)).toBe(false);
      });
    }
  }

  it('really fuses (jit_1x1, not two primitives back to back) on a wide, tall expansion at 1 thread', () => {
    if (block !== 8) return; // the AVX2 build's choice; AVX-512 may pick differently
    const r = runBoth({ c: 16, m: 96, h: 112, w: 112, stride: 2, bias: true, act: 'clip', dwAct: 'clip', block }, 1);
    expect(r.implementation).toMatch(/^jit_1x1/);
    expectClose(r.fused, r.unfused);
  });

  it('rejects what the depthwise post-op cannot express, with coded errors', () => {
    const b = binding!;
    const base: ConvDwPrimitiveOptions = { inputDims: [1, 8, 6, 6], channels: 16, stride: 1, weights: new Float32Array(128), dwWeights: new Float32Array(144) };
    expect(() => new b.ConvDwPrimitive!({ ...base, stride: 3 as 1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/stride must be 1 or 2/) }));
    expect(() => new b.ConvDwPrimitive!({ ...base, dwWeights: new Float32Array(10) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new b.ConvDwPrimitive!({ ...base, inputDims: [1, 8, 6] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const p = new b.ConvDwPrimitive!(base);
    expect(() => p.runSync(new Float32Array(3), new Float32Array(16 * 36))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    p.dispose();
    expect(() => p.runSync(new Float32Array(8 * 36), new Float32Array(16 * 36))).toThrow(expect.objectContaining({ code: 'RELEASED' }));
  });
});
