/**
 * The addon's im2col conv (native/src/im2col_*.cc): against a double-precision reference and against
 * oneDNN's direct conv on the same nChw8c buffers, over strides, dilations, asymmetric padding, every
 * fused epilogue, a residual sum written in place, batches (grouped images), GEMMs of several row
 * chunks, a half-width weight panel and two threads; plus when it is (not) chosen, and that a session's
 * placement shows it.
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '@switchyard/core/testing';
import { compareLevels, convWeights, tensor } from '../fusions/test-models.test-util.js';
import type { ConvPrimitiveOptions, NativeBinding } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { blockedConvOptions, convOutputDims, expectCloseArrays, referenceConv, seededFloats, type BlockedConvCase } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding: NativeBinding | undefined = native.ok ? native.binding : undefined;
// The kernel needs AVX2+FMA and 8-channel blocks (what AVX2 CPUs prefer; AVX-512 ones block by 16).
const isa = binding?.runtimeInfo().cpuIsa ?? '';
const servesHere = /avx2|avx512/.test(isa);

interface Case extends BlockedConvCase {
  /** Z and Y share one buffer, as the memory planner lays out a fused residual sum. */
  sumInPlace?: boolean;
}

const options = (t: Case, w: Float32Array, b: Float32Array | undefined, im2col: 'always' | 'never') =>
  blockedConvOptions(t, w, b, { winograd: 'never', im2col, channelSplit: 'never' });

/** Runs `t` through im2col and oneDNN; checks both against the reference and each other. */
function check(b: NativeBinding, t: Case, seed: number): void {
  const x = seededFloats(t.n * t.c * t.h * t.w, seed);
  // Weights scaled like a trained layer's (fan-in), so outputs are O(1) and tolerances mean something.
  const w = seededFloats(t.k * t.c * t.kernel[0] * t.kernel[1], seed + 1, 1 / Math.sqrt(t.c * t.kernel[0] * t.kernel[1]));
  const bias = t.bias ? seededFloats(t.k, seed + 2) : undefined;
  const yDims = convOutputDims(t);
  const size = yDims.reduce((a, d) => a * d, 1);
  const z = t.sum ? seededFloats(size, seed + 3) : undefined;
  const expected = referenceConv(t, x, w, bias, z);
  const xb = toBlocked(x, [t.n, t.c, t.h, t.w], 8);
  const zb = z ? toBlocked(z, yDims, 8) : undefined;

  const run = (mode: 'always' | 'never') => {
    const p = new b.ConvPrimitive(options(t, w, bias, mode));
    const y = t.sumInPlace ? Float32Array.from(zb!) : new Float32Array(zb?.length ?? toBlocked(expected, yDims, 8).length).fill(Number.NaN);
    p.runSync(xb, null, null, y, t.sumInPlace ? y : zb);
    const implementation = p.implementation;
    const packed = p.weightsPacked;
    p.dispose();
    return { y, implementation, packed };
  };
  const gemm = run('always');
  const direct = run('never');
  expect(gemm.implementation).toBe('im2col_gemm:avx2');
  expect(gemm.packed).toBe(true);
  expect(direct.implementation).not.toMatch(/im2col/);
  expectCloseArrays(fromBlocked(gemm.y, yDims, 8), expected, 1e-4);
  expectCloseArrays(fromBlocked(direct.y, yDims, 8), expected, 1e-4);
  expectCloseArrays(gemm.y, direct.y, 1e-5);
}

describe.skipIf(!binding || !servesHere)(`im2col conv (${isa || 'no addon'})`, () => {
  const b = binding!;

  it('3x3 stride 2 with padding, bias and Relu; 24 output channels (a half-width weight panel)', () => {
    check(b, { n: 1, c: 16, k: 24, h: 14, w: 14, kernel: [3, 3], strides: [2, 2], padsBegin: [1, 1], padsEnd: [1, 1], bias: true, activation: 'relu' }, 11);
  });

  it('odd sizes, asymmetric padding and strides, residual sum and Clip', () => {
    check(
      b,
      { n: 1, c: 8, k: 16, h: 9, w: 11, kernel: [3, 3], strides: [2, 3], padsBegin: [0, 1], padsEnd: [1, 0], sum: true, activation: 'clip', alpha: -0.5, beta: 0.75 },
      21,
    );
  });

  it('a residual sum read from and written to one buffer (in place), with LeakyRelu', () => {
    check(b, { n: 1, c: 16, k: 32, h: 8, w: 8, kernel: [3, 3], strides: [2, 2], padsBegin: [1, 1], padsEnd: [1, 1], sum: true, sumInPlace: true, activation: 'leakyRelu', alpha: 0.1 }, 31);
  });

  it('a 1x1 stride-2 conv, a dilated 3x3 and a 5x3 kernel', () => {
    check(b, { n: 1, c: 24, k: 8, h: 10, w: 10, kernel: [1, 1], strides: [2, 2], bias: true }, 41);
    check(b, { n: 1, c: 8, k: 16, h: 9, w: 9, kernel: [3, 3], dilations: [2, 2], padsBegin: [2, 2], padsEnd: [2, 2] }, 42);
    check(b, { n: 1, c: 8, k: 8, h: 7, w: 6, kernel: [5, 3], padsBegin: [2, 1], padsEnd: [2, 1], activation: 'relu' }, 43);
  });

  it('a batch of 5 (two groups of images: their rows exceed a group) with a sum, at 2 threads', () => {
    check(b, { n: 5, c: 64, k: 16, h: 40, w: 40, kernel: [3, 3], strides: [2, 2], padsBegin: [1, 1], padsEnd: [1, 1], sum: true, threads: 2 }, 51);
  });

  it('a GEMM of several row chunks (400 rows) at 2 threads', () => {
    check(b, { n: 1, c: 16, k: 40, h: 20, w: 20, kernel: [3, 3], padsBegin: [1, 1], padsEnd: [1, 1], bias: true, activation: 'relu', threads: 2 }, 61);
  });

  it('answers ConvPrimitive.algorithm as the constructor decides, and rejects an unknown mode', () => {
    const w = seededFloats(64 * 64 * 9, 4);
    const base: ConvPrimitiveOptions = {
      inputDims: [1, 64, 14, 14],
      weightDims: [64, 64, 3, 3],
      strides: [2, 2],
      padsBegin: [1, 1],
      padsEnd: [1, 1],
      hasBias: false,
      threads: 1,
      srcBlock: 8,
      dstBlock: 8,
      weights: w,
    };
    const cases: Array<[Partial<ConvPrimitiveOptions>, string]> = [
      [{}, 'im2col'], // 7x7 output: oneDNN's AVX2 direct conv is slow there
      [{ inputDims: [1, 64, 56, 56] }, 'onednn'], // 28x28 output: oneDNN keeps it in auto mode
      [{ inputDims: [1, 64, 56, 56], im2col: 'always' }, 'im2col'],
      [{ im2col: 'never' }, 'onednn'],
      [{ strides: [1, 1] }, 'winograd'], // stride 1: Winograd is tried first
      [{ strides: [1, 1], winograd: 'never' }, 'onednn'], // and im2col's auto mode leaves stride 1 to oneDNN
      [{ srcBlock: 0, dstBlock: 0, im2col: 'always' }, 'onednn'], // plain layouts are not served
    ];
    for (const [o, algorithm] of cases) {
      const options = { ...base, ...o };
      expect(b.ConvPrimitive.algorithm?.(options), JSON.stringify(o)).toBe(algorithm);
      const p = new b.ConvPrimitive(options);
      expect(p.implementation.startsWith('im2col'), JSON.stringify(o)).toBe(algorithm === 'im2col');
      p.dispose();
    }
    expect(() => new b.ConvPrimitive({ ...base, im2col: 'often' as 'always' })).toThrow(/im2col must be 'auto', 'always' or 'never'/);
  });

  it('runs a ResNet downsampling block in a session, reported as im2col in the placement on AVX2 (8-channel blocks)', async () => {
    const C = 16;
    const block = () =>
      buildModel({
        inputs: [['x', 'float32', [1, C, 14, 14]]],
        outputs: [['y', 'float32', [1, 2 * C, 7, 7]]],
        initializers: {
          w0: convWeights([C, C, 1, 1], 5),
          w1: convWeights([2 * C, C, 3, 3], 1),
          b1: tensor([2 * C], 2),
          wd: convWeights([2 * C, C, 1, 1], 3),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w0'], outputs: ['s'] },
          { op: 'Conv', inputs: ['s', 'w1', 'b1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1], strides: [2, 2] } },
          { op: 'Conv', inputs: ['s', 'wd'], outputs: ['d'], attributes: { strides: [2, 2] } },
          { op: 'Add', inputs: ['d', 'c1'], outputs: ['a'] },
          { op: 'Relu', inputs: ['a'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(block, { x: tensor([1, C, 14, 14], 4) }, { tol: 1e-4 });
    // The kernel works on 8-channel blocks: AVX-512 CPUs block by 16, where oneDNN's direct conv serves strided convs.
    if (binding?.preferredChannelBlock?.() === 8) expect(r.implementations).toContain('im2col');
    else expect(r.implementations).not.toContain('im2col');
  });
});
