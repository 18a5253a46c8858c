/**
 * The addon's channel-blocked paths against plain ones: ReorderPrimitive against the TS reference
 * layout (channel-blocked.ts), ConvPrimitive and PoolPrimitive with blocked src / dst / z against the
 * same primitives on NCHW, and the argument checks. Padding lanes (C = 3, 20) must come out zero.
 */
import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor, type KernelDef } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import type { ChannelBlock } from './binding.js';
import { nativeBlockedKernels } from './blocked-native.js';
import { blockedDims, fromBlocked, logicalDims, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.ReorderPrimitive && native.binding.preferredChannelBlock ? native.binding : undefined;

const data = (n: number, seed: number) => seededFloats(n, seed);
const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

function expectClose(actual: Float32Array, expected: Float32Array, tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])))) throw new Error(`[${i}]: ${actual[i]} vs ${expected[i]}`);
  }
}

/** The padding lanes of a blocked buffer of one image ([1, ceil(C / b), ...spatial, b]) holding `channels` channels. */
function paddingLanes(x: Float32Array, channels: number, block: number): number[] {
  const used = channels % block;
  if (used === 0) return [];
  const lastBlock = x.length - x.length / Math.ceil(channels / block); // where the last channel block starts
  return Array.from(x.subarray(lastBlock)).filter((_, i) => i % block >= used);
}

describe.skipIf(!binding)('channel-blocked native primitives', () => {
  const b = binding!;
  const block = (binding?.preferredChannelBlock?.() ?? 8) as ChannelBlock;

  it('prefers the block of the CPU: 8 on AVX2, 16 on AVX-512', () => {
    const isa = b.runtimeInfo().cpuIsa;
    expect(block).toBe(isa.startsWith('avx512') ? 16 : 8);
  });

  it('reorders plain ↔ blocked like the TS reference, padding zero, for 3, 8, 20 and 1000 channels', () => {
    for (const dims of [[1, 3, 5, 7], [2, 8, 4, 4], [2, 20, 3, 3], [1, 1000, 1, 1]]) {
      const x = data(size(dims), dims[1]);
      const expected = toBlocked(x, dims, block);
      const y = new Float32Array(size(blockedDims(dims, block))).fill(Number.NaN);
      const to = new b.ReorderPrimitive!({ dims, fromBlock: 0, toBlock: block });
      to.runSync(x, y);
      expect(Array.from(y)).toEqual(Array.from(expected));
      const back = new Float32Array(x.length);
      const from = new b.ReorderPrimitive!({ dims, fromBlock: block, toBlock: 0 });
      from.runSync(y, back);
      expect(Array.from(back)).toEqual(Array.from(x));
      expect(Array.from(fromBlocked(expected, dims, block))).toEqual(Array.from(x));
      to.dispose();
      from.dispose();
    }
  });

  it('convolves blocked src / dst / z exactly like the plain primitive, first conv (C = 3) from NCHW, a blocked 4-channel input read as NCHW', async () => {
    const cases = [
      { x: [1, 3, 9, 9], w: [20, 3, 3, 3], group: 1, src: 0, pad: 1 },
      { x: [1, 20, 7, 7], w: [20, 20, 3, 3], group: 1, src: block, pad: 1 },
      { x: [2, 24, 6, 6], w: [24, 1, 3, 3], group: 24, src: block, pad: 1 },
      { x: [1, 16, 5, 5], w: [1000, 16, 1, 1], group: 1, src: block, pad: 0 },
      // At most half a block of input channels: the kernel reads them in plain NCHW (a reorder inside it).
      { x: [2, 4, 8, 8], w: [16, 4, 3, 3], group: 1, src: block, pad: 1 },
    ];
    for (const c of cases) {
      const wData = data(size(c.w), 7);
      const bias = data(c.w[0], 8);
      const common = { inputDims: c.x, weightDims: c.w, group: c.group, padsBegin: [c.pad, c.pad], padsEnd: [c.pad, c.pad], hasBias: true, hasSum: true, activation: 'clip' as const, activationAlpha: -0.5, activationBeta: 0.5, weights: wData, bias };
      const plain = new b.ConvPrimitive(common);
      const outDims = plain.outputDims;
      const x = data(size(c.x), 1);
      const z = data(size(outDims), 2);
      const expected = new Float32Array(size(outDims));
      plain.runSync(x, null, null, expected, z);

      for (const zBlock of [0, block] as const) {
        const blocked = new b.ConvPrimitive({ ...common, srcBlock: c.src as ChannelBlock, dstBlock: block, sumBlock: zBlock });
        // oneDNN's own choice matches: the run reorders nothing (ONEDNN_VERBOSE shows only the convolution),
        // except a blocked input of at most half a block, which the kernel reorders to NCHW itself.
        const src = c.group === 1 && c.x[1] * 2 <= block ? 0 : c.src;
        if (blocked.primitiveLayouts) expect(blocked.primitiveLayouts).toEqual({ src, dst: block });
        const xArg = c.src ? toBlocked(x, c.x, block) : x;
        const zArg = zBlock ? toBlocked(z, outDims, block) : z;
        const y = new Float32Array(size(blockedDims(outDims, block))).fill(Number.NaN);
        await blocked.run(xArg, null, null, y, zArg);
        expectClose(fromBlocked(y, outDims, block), expected);
        if (outDims[0] === 1) expect(paddingLanes(y, outDims[1], block).every((v) => v === 0)).toBe(true);
        blocked.dispose();
      }
      plain.dispose();
    }
  });

  it('sums a plain Z that shares the blocked Y buffer (an in-place plan) without reading what it overwrote', () => {
    const common = { inputDims: [1, 16, 6, 6], weightDims: [16, 16, 3, 3], padsBegin: [1, 1], padsEnd: [1, 1], hasSum: true, weights: data(16 * 16 * 9, 3) };
    const x = data(16 * 36, 4);
    const z = data(16 * 36, 5);
    const expected = new Float32Array(16 * 36);
    const plain = new b.ConvPrimitive(common);
    plain.runSync(x, null, null, expected, z);
    const blocked = new b.ConvPrimitive({ ...common, srcBlock: block, dstBlock: block, sumBlock: 0 });
    const shared = Float32Array.from(z); // C = 16: the plain and blocked buffers have one size
    blocked.runSync(toBlocked(x, common.inputDims, block), null, null, shared, shared);
    expectClose(fromBlocked(shared, [1, 16, 6, 6], block), expected);
    plain.dispose();
    blocked.dispose();
  });

  it('pools blocked tensors like NCHW ones (max, average, global average)', () => {
    const x = [1, 20, 9, 9];
    const xData = data(size(x), 3);
    const padded = logicalDims(blockedDims(x, block), block);
    const options = [
      { kind: 'max' as const, kernel: [3, 3], strides: [2, 2], padsBegin: [1, 1], padsEnd: [1, 1] },
      { kind: 'avgExcludePad' as const, kernel: [2, 2], strides: [2, 2] },
      { kind: 'avgExcludePad' as const, kernel: [9, 9] },
    ];
    for (const o of options) {
      const plain = new b.PoolPrimitive!({ inputDims: x, ...o });
      const expected = new Float32Array(size(plain.outputDims));
      plain.runSync(xData, expected);
      const pool = new b.PoolPrimitive!({ inputDims: padded, ...o, block });
      const y = new Float32Array(size(blockedDims(pool.outputDims, block)));
      pool.runSync(toBlocked(xData, x, block), y);
      expectClose(fromBlocked(y, plain.outputDims, block), expected);
      plain.dispose();
      pool.dispose();
    }
  });

  it('rejects wrong buffer lengths and block sizes with coded errors', () => {
    const r = new b.ReorderPrimitive!({ dims: [1, 20, 2, 2], fromBlock: 0, toBlock: block });
    // The blocked buffer holds the padded channels: 24 (or 32) × 4, not 20 × 4.
    expect(() => r.runSync(new Float32Array(80), new Float32Array(80))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new b.ReorderPrimitive!({ dims: [1, 20, 2, 2], fromBlock: 0, toBlock: 4 as ChannelBlock })).toThrow(/block must be 0 \(plain\), 8 or 16/);
    expect(() => new b.ReorderPrimitive!({ dims: [20, 2], fromBlock: 0, toBlock: block })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    r.dispose();
    expect(() => r.runSync(new Float32Array(80), new Float32Array(96))).toThrow(expect.objectContaining({ code: 'RELEASED' }));
    const conv = new b.ConvPrimitive({ inputDims: [1, 20, 4, 4], weightDims: [8, 20, 1, 1], srcBlock: block, weights: data(160, 1) });
    expect(() => conv.runSync(new Float32Array(320), null, null, new Float32Array(128))).toThrow(/x \(input/);
    conv.dispose();
  });

  it('runs the ReorderFromBlocked / ReorderToBlocked / BlockedPool kernels, checking X against the attributes', async () => {
    const defs = new Map<string, KernelDef>(nativeBlockedKernels(b).map((d) => [d.opType, d]));
    const dims = [2, 20, 3, 4];
    const x = data(size(dims), 4);
    const [blocked] = (await runKernel(defs.get('ReorderToBlocked')!, [new Tensor('float32', x, dims)], { attributes: { block } })) as Tensor[];
    expect(blocked.dims).toEqual(blockedDims(dims, block));
    expect(Array.from(blocked.data as Float32Array)).toEqual(Array.from(toBlocked(x, dims, block)));
    const [plain] = (await runKernel(defs.get('ReorderFromBlocked')!, [blocked], { attributes: { block, channels: 20 } })) as Tensor[];
    expect(plain.dims).toEqual(dims);
    expect(Array.from(plain.data as Float32Array)).toEqual(Array.from(x));
    await expect(runKernel(defs.get('ReorderFromBlocked')!, [blocked], { attributes: { block, channels: 40 } })).rejects.toThrow(/does not hold 40 channels/);
    await expect(runKernel(defs.get('ReorderFromBlocked')!, [new Tensor('float32', x, dims)], { attributes: { block, channels: 20 } })).rejects.toBeInstanceOf(SwitchyardError);

    const [pooled] = (await runKernel(defs.get('BlockedPool')!, [blocked], { attributes: { block, pool_op: 'GlobalAveragePool' } })) as Tensor[];
    expect(pooled.dims).toEqual(blockedDims([2, 20, 1, 1], block));
    const means = fromBlocked(pooled.data as Float32Array, [2, 20, 1, 1], block);
    for (let c = 0; c < 40; c++) expect(means[c]).toBeCloseTo(x.subarray(c * 12, c * 12 + 12).reduce((a, v) => a + v, 0) / 12, 5);
    const [maxima] = (await runKernel(defs.get('BlockedPool')!, [blocked], { attributes: { block, pool_op: 'GlobalMaxPool' } })) as Tensor[];
    const peaks = fromBlocked(maxima.data as Float32Array, [2, 20, 1, 1], block);
    for (let c = 0; c < 40; c++) expect(peaks[c]).toBe(Math.max(...x.subarray(c * 12, c * 12 + 12)));
    await expect(runKernel(defs.get('BlockedPool')!, [blocked], { attributes: { block, pool_op: 'LpPool' } })).rejects.toThrow(/pool_op must be/);
  });

  it('reorders [N, C, 1, 1] of whole channel blocks as a plain copy (the layouts coincide), and with padding as before', async () => {
    const defs = new Map<string, KernelDef>(nativeBlockedKernels(b).map((d) => [d.opType, d]));
    for (const channels of [2 * block, 2 * block + 3]) {
      const dims = [3, channels, 1, 1];
      const x = data(size(dims), channels);
      const [blocked] = (await runKernel(defs.get('ReorderToBlocked')!, [new Tensor('float32', x, dims)], { attributes: { block } })) as Tensor[];
      expect(blocked.dims).toEqual(blockedDims(dims, block));
      expect(Array.from(blocked.data as Float32Array)).toEqual(Array.from(toBlocked(x, dims, block)));
      const [plain] = (await runKernel(defs.get('ReorderFromBlocked')!, [blocked], { attributes: { block, channels } })) as Tensor[];
      expect(plain.dims).toEqual(dims);
      expect(Array.from(plain.data as Float32Array)).toEqual(Array.from(x));
    }
  });
});
