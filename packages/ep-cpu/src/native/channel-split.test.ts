/**
 * The output-channel split (native/src/channel_split.h): a conv, or a fused 1x1 + depthwise pair, run
 * as one single-threaded oneDNN primitive per thread over a slice of the output channels. Split and
 * unsplit runs of the same buffers must agree (and a conv must match the double-precision reference),
 * with a residual sum in place and every epilogue; the split must apply only where its slices are whole
 * channel blocks of one image, and in auto mode only on small images.
 */
import { describe, expect, it } from 'vitest';
import type { ConvDwPrimitiveOptions, ConvPrimitiveOptions, NativeBinding } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { blockedConvOptions, convOutputDims, expectCloseArrays, referenceConv, seededFloats, type BlockedConvCase } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding: NativeBinding | undefined = native.ok ? native.binding : undefined;
// Slices are whole channel blocks of the layout this CPU gets (8 on AVX2, 16 on AVX-512); the cases'
// channel counts scale with the block, so each splits (or not) for the same reason on both.
const B = binding?.preferredChannelBlock?.() ?? 0;
const servesHere = /avx2|avx512/.test(binding?.runtimeInfo().cpuIsa ?? '') && (B === 8 || B === 16);
const ch = (n: number) => (n * B) / 8;
const SPLIT = /output-channel split/;

type Mode = 'always' | 'never' | 'auto';

type ConvCase = BlockedConvCase;

const convOptions = (t: ConvCase, w: Float32Array, b: Float32Array | undefined, channelSplit: Mode, threads = 2) =>
  blockedConvOptions(t, w, b, { threads, winograd: 'never', im2col: 'never', channelSplit, srcBlock: B as 8 | 16, dstBlock: B as 8 | 16 });

/** Runs split and unsplit: each says which it is, and their outputs agree. Returns the split run. */
function splitAgreesWithWhole(run: (mode: Mode) => { y: Float32Array; implementation: string }) {
  const split = run('always');
  const whole = run('never');
  expect(split.implementation).toMatch(SPLIT);
  expect(whole.implementation).not.toMatch(SPLIT);
  expectCloseArrays(split.y, whole.y, 1e-5);
  return split;
}

/** Split and unsplit at 2 threads, the residual sum written in place (Z and Y one buffer); both against the reference. */
function checkConv(b: NativeBinding, t: ConvCase, seed: number): void {
  const x = seededFloats(t.n * t.c * t.h * t.w, seed);
  const w = seededFloats(t.k * t.c * t.kernel[0] * t.kernel[1], seed + 1, 1 / Math.sqrt(t.c * t.kernel[0] * t.kernel[1]));
  const bias = t.bias ? seededFloats(t.k, seed + 2) : undefined;
  const yDims = convOutputDims(t);
  const z = seededFloats(yDims.reduce((a, d) => a * d, 1), seed + 3);
  const expected = referenceConv(t, x, w, bias, t.sum ? z : undefined);
  const xb = toBlocked(x, [t.n, t.c, t.h, t.w], B);
  const zb = toBlocked(z, yDims, B);
  const run = (mode: Mode) => {
    const p = new b.ConvPrimitive(convOptions(t, w, bias, mode));
    // With a sum, Y starts as Z (in place); without, as NaN, so a lane left unwritten fails.
    const y = t.sum ? Float32Array.from(zb) : new Float32Array(zb.length).fill(Number.NaN);
    p.runSync(xb, null, null, y, t.sum ? y : undefined);
    const implementation = p.implementation;
    p.dispose();
    return { y, implementation };
  };
  const split = splitAgreesWithWhole(run);
  expectCloseArrays(fromBlocked(split.y, yDims, B), expected, 1e-4);
}

describe.skipIf(!binding || !servesHere)('output-channel split', () => {
  const b = binding!;

  it('a 1x1 conv on 7x7 with bias, an in-place residual sum and Relu', () => {
    checkConv(b, { n: 1, c: ch(32), k: ch(48), h: 7, w: 7, kernel: [1, 1], bias: true, sum: true, activation: 'relu' }, 11);
  });

  it('a padded, strided 3x3 conv with Clip, and a 1x1 with LeakyRelu', () => {
    checkConv(b, { n: 1, c: ch(16), k: ch(32), h: 9, w: 8, kernel: [3, 3], strides: [2, 2], padsBegin: [1, 0], padsEnd: [0, 1], activation: 'clip', alpha: -0.25, beta: 0.5 }, 21);
    checkConv(b, { n: 1, c: ch(8), k: ch(16), h: 5, w: 5, kernel: [1, 1], activation: 'leakyRelu', alpha: 0.2 }, 22);
  });

  it('applies only to whole channel blocks of one image at 2+ threads, and in auto mode to small images', () => {
    const w = (k: number, c: number) => seededFloats(k * c, 3);
    const built = (o: Partial<ConvPrimitiveOptions>, mode: Mode, threads = 2) => {
      const t: ConvCase = { n: 1, c: ch(16), k: ch(32), h: 7, w: 7, kernel: [1, 1] };
      const options = { ...convOptions(t, w(ch(32), ch(16)), undefined, mode, threads), ...o };
      const p = new b.ConvPrimitive(options);
      const implementation = p.implementation;
      p.dispose();
      return implementation;
    };
    expect(built({}, 'auto')).toMatch(SPLIT); // 49 pixels
    expect(built({ inputDims: [1, ch(16), 14, 14] }, 'auto')).not.toMatch(SPLIT); // 196: oneDNN's own split
    expect(built({ inputDims: [1, ch(16), 14, 14] }, 'always')).toMatch(SPLIT);
    expect(built({ inputDims: [2, ch(16), 7, 7] }, 'always')).not.toMatch(SPLIT); // a batch: slices are not contiguous
    expect(built({}, 'always', 1)).not.toMatch(SPLIT); // one thread: nothing to split
    expect(built({ weightDims: [ch(24), ch(16), 1, 1], weights: w(ch(24), ch(16)) }, 'always')).not.toMatch(SPLIT); // 3 blocks, not 2 whole halves
    expect(built({ srcBlock: 0, dstBlock: 0 }, 'always')).not.toMatch(SPLIT); // plain layouts
    expect(() => built({}, 'sometimes' as Mode)).toThrow(/channelSplit must be 'auto', 'always' or 'never'/);
  });

  it('a fused 1x1 + depthwise pair, stride 1 and 2, agrees split and unsplit', () => {
    const dw = b.ConvDwPrimitive;
    if (!dw) return;
    for (const stride of [1, 2] as const) {
      const c = ch(16), m = ch(32), h = 7, wd = 7;
      const options = (channelSplit: Mode): ConvDwPrimitiveOptions => ({
        inputDims: [1, c, h, wd], channels: m, stride,
        weights: seededFloats(m * c, 1, 0.5), bias: seededFloats(m, 2, 0.2),
        dwWeights: seededFloats(m * 9, 3, 0.5), dwBias: seededFloats(m, 4, 0.2),
        activation: 'clip', activationAlpha: 0, activationBeta: 6, dwActivation: 'relu',
        threads: 2, srcBlock: B as 8 | 16, dstBlock: B as 8 | 16, channelSplit,
      });
      const x = seededFloats(c * h * wd, 5, 2);
      const run = (mode: Mode) => {
        const p = new dw(options(mode));
        const y = new Float32Array(p.outputDims.reduce((a, d) => a * d, 1)).fill(Number.NaN);
        p.runSync(x, y);
        const implementation = p.implementation;
        p.dispose();
        return { y, implementation };
      };
      splitAgreesWithWhole(run);
      expect(run('auto').implementation).toMatch(SPLIT); // 7x7 (or 4x4) output
    }
  });
});
