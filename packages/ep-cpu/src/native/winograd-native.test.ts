/**
 * The addon's Winograd F(4x4, 3x3) conv (native/src/winograd_*.cc): against a textbook reference and
 * against oneDNN's direct conv on the same nChw8c buffers, with every fused epilogue, odd spatial
 * sizes (partial tiles), asymmetric padding, a channel count that is not a multiple of the 16-wide
 * weight panel, batches and two threads; plus when it is (not) chosen, and that a session's
 * placement shows it.
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '@switchyard/core/testing';
import { compareLevels, tensor } from '../fusions/test-models.test-util.js';
import type { ConvPrimitiveOptions, NativeBinding } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { blockedConvOptions, convOutputDims, expectCloseArrays, referenceConv, seededFloats, type BlockedConvCase } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding: NativeBinding | undefined = native.ok ? native.binding : undefined;
// The kernel needs AVX2+FMA, and 8-channel blocks (what AVX2 CPUs prefer; AVX-512 ones block by 16).
const isa = binding?.runtimeInfo().cpuIsa ?? '';
const servesHere = /avx2|avx512/.test(isa);

/** A 3x3 stride-1 conv (the kernel and stride are implied). */
type Case = Omit<BlockedConvCase, 'kernel' | 'strides' | 'dilations' | 'threads'> & { padsBegin: [number, number]; padsEnd: [number, number] };

/** ONNX Conv (3x3, stride 1) + bias, + Z, then the activation, on plain NCHW, in double. */
function reference(t: Case, x: Float32Array, w: Float32Array, b: Float32Array | undefined, z: Float32Array | undefined) {
  const conv = { ...t, kernel: [3, 3] as [number, number] };
  return { y: referenceConv(conv, x, w, b, z), dims: convOutputDims(conv) };
}

const expectClose = expectCloseArrays;

function options(t: Case, w: Float32Array, b: Float32Array | undefined, winograd: 'always' | 'never', threads = 1): ConvPrimitiveOptions {
  return blockedConvOptions({ ...t, kernel: [3, 3], threads }, w, b, { winograd });
}

/** Runs `t` through Winograd and oneDNN; checks both against the reference (unless too slow) and each other. */
function check(b: NativeBinding, t: Case, seed: number, threads = 1, withReference = true): void {
  // Weights scaled like a trained layer's (fan-in), so outputs are O(1) and tolerances mean something.
  const x = seededFloats(t.n * t.c * t.h * t.w, seed);
  const w = seededFloats(t.k * t.c * 9, seed + 1, 1 / Math.sqrt(t.c * 9));
  const bias = t.bias ? seededFloats(t.k, seed + 2) : undefined;
  const outH = t.h + t.padsBegin[0] + t.padsEnd[0] - 2;
  const outW = t.w + t.padsBegin[1] + t.padsEnd[1] - 2;
  const z = t.sum ? seededFloats(t.n * t.k * outH * outW, seed + 3) : undefined;
  const expected = withReference ? reference(t, x, w, bias, z) : { y: new Float32Array(t.n * t.k * outH * outW), dims: [t.n, t.k, outH, outW] };
  const xb = toBlocked(x, [t.n, t.c, t.h, t.w], 8);
  const zb = z ? toBlocked(z, expected.dims, 8) : undefined;

  const wino = new b.ConvPrimitive(options(t, w, bias, 'always', threads));
  const direct = new b.ConvPrimitive(options(t, w, bias, 'never', threads));
  expect(wino.implementation).toBe('winograd_f4x4:avx2');
  expect(direct.implementation).not.toMatch(/winograd/);
  expect(wino.weightsPacked).toBe(true);
  const yw = new Float32Array(expected.y.length).fill(Number.NaN); // a lane left unwritten fails
  const yd = new Float32Array(expected.y.length);
  wino.runSync(xb, null, null, yw, zb);
  direct.runSync(xb, null, null, yd, zb);
  wino.dispose();
  direct.dispose();
  if (withReference) {
    expectClose(fromBlocked(yw, expected.dims, 8), expected.y, 1e-4);
    expectClose(fromBlocked(yd, expected.dims, 8), expected.y, 1e-4);
  }
  // F(4x4, 3x3) loses a little precision against the direct sum; the real-model test bounds it end to end.
  expectClose(yw, yd, 5e-5);
}

describe.skipIf(!binding || !servesHere)(`Winograd conv (${isa || 'no addon'})`, () => {
  const b = binding!;

  it('matches the reference with bias + Relu on odd sizes (partial tiles)', () => {
    check(b, { n: 1, c: 8, k: 16, h: 7, w: 9, padsBegin: [1, 1], padsEnd: [1, 1], bias: true, activation: 'relu' }, 11);
  });

  it('without padding or epilogue, batch 2, 24 output channels (a half-width weight panel)', () => {
    check(b, { n: 2, c: 16, k: 24, h: 13, w: 11, padsBegin: [0, 0], padsEnd: [0, 0] }, 21);
  });

  it('asymmetric padding, residual sum and Clip', () => {
    check(b, { n: 1, c: 24, k: 8, h: 5, w: 6, padsBegin: [0, 1], padsEnd: [1, 0], bias: true, sum: true, activation: 'clip', alpha: -0.5, beta: 0.75 }, 31);
  });

  it('residual sum with LeakyRelu; a 1x1 output; more rows than one register tile', () => {
    check(b, { n: 1, c: 8, k: 8, h: 3, w: 3, padsBegin: [0, 0], padsEnd: [0, 0], sum: true, activation: 'leakyRelu', alpha: 0.1 }, 41);
    check(b, { n: 3, c: 32, k: 40, h: 17, w: 10, padsBegin: [1, 1], padsEnd: [1, 1], bias: true, sum: true, activation: 'relu' }, 42);
  });

  it('runs a batch whose transformed tiles exceed one pass in groups of images (sum read per group)', () => {
    // 64 channels at 48x48: 2.6 MB of V and M per image, so each image is its own group.
    check(b, { n: 3, c: 64, k: 64, h: 48, w: 48, padsBegin: [1, 1], padsEnd: [1, 1], bias: true, sum: true, activation: 'relu' }, 61, 2, false);
  });

  it('gives the same bits on two threads as on one', () => {
    const t: Case = { n: 2, c: 32, k: 32, h: 12, w: 12, padsBegin: [1, 1], padsEnd: [1, 1], bias: true, activation: 'relu' };
    const x = toBlocked(seededFloats(2 * 32 * 144, 5), [2, 32, 12, 12], 8);
    const w = seededFloats(32 * 32 * 9, 6, 0.05);
    const bias = seededFloats(32, 7);
    const run = (threads: number) => {
      const p = new b.ConvPrimitive(options(t, w, bias, 'always', threads));
      const y = new Float32Array(2 * 32 * 144);
      p.runSync(x, null, null, y);
      p.dispose();
      return y;
    };
    expect(run(2)).toEqual(run(1));
    check(b, t, 8, 2);
  });

  it('sums Z in place (z is y)', () => {
    const t: Case = { n: 1, c: 16, k: 16, h: 9, w: 9, padsBegin: [1, 1], padsEnd: [1, 1], bias: true, sum: true, activation: 'relu' };
    const x = seededFloats(16 * 81, 51);
    const w = seededFloats(16 * 16 * 9, 52, 1 / 12);
    const bias = seededFloats(16, 53);
    const z = seededFloats(16 * 81, 54);
    const expected = reference(t, x, w, bias, z);
    const p = new b.ConvPrimitive(options(t, w, bias, 'always'));
    const y = toBlocked(z, [1, 16, 9, 9], 8);
    p.runSync(toBlocked(x, [1, 16, 9, 9], 8), null, null, y, y);
    p.dispose();
    expectClose(fromBlocked(y, expected.dims, 8), expected.y, 1e-4);
  });

  it('is not used where it does not apply, even when asked for', () => {
    const base = options({ n: 1, c: 16, k: 16, h: 8, w: 8, padsBegin: [1, 1], padsEnd: [1, 1] }, seededFloats(16 * 16 * 9, 1), undefined, 'always');
    const implementation = (o: Partial<ConvPrimitiveOptions>) => {
      const p = new b.ConvPrimitive({ ...base, ...o });
      const name = p.implementation;
      p.dispose();
      return name;
    };
    expect(implementation({})).toBe('winograd_f4x4:avx2');
    expect(implementation({ strides: [2, 2] })).not.toMatch(/winograd/);
    expect(implementation({ dilations: [2, 2] })).not.toMatch(/winograd/);
    expect(implementation({ srcBlock: 0, dstBlock: 0 })).not.toMatch(/winograd/);
    expect(implementation({ weights: undefined })).not.toMatch(/winograd/); // weights given per run
    expect(implementation({ inputDims: [1, 12, 8, 8], weightDims: [16, 12, 3, 3], weights: seededFloats(16 * 12 * 9, 2) })).not.toMatch(/winograd/);
    expect(implementation({ weightDims: [16, 16, 5, 5], weights: seededFloats(16 * 16 * 25, 3) })).not.toMatch(/winograd/);
    expect(implementation({ winograd: 'never' })).not.toMatch(/winograd/);
  });

  it('rejects an unknown mode with a coded error', () => {
    const o = options({ n: 1, c: 8, k: 8, h: 4, w: 4, padsBegin: [1, 1], padsEnd: [1, 1] }, seededFloats(8 * 8 * 9, 1), undefined, 'always');
    expect(() => new b.ConvPrimitive({ ...o, winograd: 'sometimes' as 'always' })).toThrow(/winograd must be 'auto', 'always' or 'never'/);
  });

  it('answers ConvPrimitive.algorithm as the constructor decides, building nothing', () => {
    const w = seededFloats(64 * 64 * 9, 4);
    const base = options({ n: 1, c: 64, k: 64, h: 28, w: 28, padsBegin: [1, 1], padsEnd: [1, 1] }, w, undefined, 'always');
    for (const o of [
      { winograd: 'auto' as const },
      { winograd: 'never' as const },
      { winograd: 'auto' as const, inputDims: [1, 64, 3, 3] }, // too little work: oneDNN in auto mode
      { winograd: 'always' as const, inputDims: [1, 64, 3, 3] },
      { winograd: 'auto' as const, strides: [2, 2] },
    ]) {
      const p = new b.ConvPrimitive({ ...base, ...o });
      const algorithm = p.implementation.startsWith('winograd') ? 'winograd' : p.implementation.startsWith('im2col') ? 'im2col' : 'onednn';
      expect(b.ConvPrimitive.algorithm?.({ ...base, ...o })).toBe(algorithm);
      p.dispose();
    }
    expect(b.ConvPrimitive.algorithm?.(base)).toBe('winograd');
    expect(b.ConvPrimitive.algorithm?.({ ...base, inputDims: [1, 64, 3, 3], winograd: 'auto' })).toBe('onednn');
  });

  it('runs a blocked ResNet block in a session, reported as winograd in the placement (static and symbolic batch)', async () => {
    // 64 channels: enough work for Winograd on either ISA (the addon's on AVX2's 8-blocks, oneDNN's on AVX-512's 16-blocks).
    const C = 64;
    // A 1x1 stem first: the block's convs then read blocked activations (the graph input is NCHW).
    const block = (batch: number | string) => () =>
      buildModel({
        inputs: [['x', 'float32', [batch, C, 20, 20]]],
        outputs: [['y', 'float32', [batch, C, 20, 20]]],
        initializers: {
          w0: tensor([C, C, 1, 1], 5, -0.3, 0.3),
          w1: tensor([C, C, 3, 3], 1, -0.1, 0.1),
          b1: tensor([C], 2),
          w2: tensor([C, C, 3, 3], 3, -0.1, 0.1),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w0'], outputs: ['s'] },
          { op: 'Conv', inputs: ['s', 'w1', 'b1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
          { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Add', inputs: ['s', 'c2'], outputs: ['a'] },
          { op: 'Relu', inputs: ['a'], outputs: ['y'] },
        ],
      });
    for (const [batch, n] of [[1, 1], ['N', 2]] as const) {
      const r = await compareLevels(block(batch), { x: tensor([n, C, 20, 20], 4) }, { tol: 1e-4 });
      expect(r.ops).toEqual(['com.switchyard::BlockedConv', 'com.switchyard::BlockedConv', 'com.switchyard::BlockedConv', 'com.switchyard::ReorderFromBlocked']);
      expect(r.implementations.slice(0, 3)).toEqual(['onednn', 'winograd', 'winograd']);
    }
  });
});
