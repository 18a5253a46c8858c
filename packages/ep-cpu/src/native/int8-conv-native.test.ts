/**
 * The native int8 convolutions against the TS kernels: ConvInteger's int32 results must be identical
 * (any uint8/int8 mix, zero points per tensor or per channel, groups, strides, pads, dilations, 1-D to
 * 3-D, accumulators past 2^24), and so must QLinearConv's / QuantizedConv's requantized bytes and
 * DynamicQuantizedConv's floats. Also: the 7-bit weight halves (forced here; the AVX2 run takes them
 * for real), dynamic shapes, the oneDNN-thread path, and coded errors for bad arguments.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, type KernelDef } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { nativeInt8ConvKernels } from './int8-conv-native.js';
import { convIntegerKernel } from '../kernels/ConvInteger.js';
import { qLinearConvKernel } from '../kernels/QLinearConv.js';
import { quantizedConvKernel } from '../kernels/QuantizedConv.js';
import { dynamicQuantizedConvKernel } from '../kernels/DynamicQuantizedConv.js';
import { isaFamily } from './test-data.test-util.js';
import { firstDifference, randomFloats, randomInts, runDef, scalarTensor, type Attr, type HarnessOptions } from './int8-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok ? native.binding : undefined;
const defs = binding ? nativeInt8ConvKernels(binding) : [];
const def = (op: string) => defs.find((d) => d.opType === op)!;

async function expectSame(nativeDef: KernelDef, tsDef: KernelDef, inputs: Array<Tensor | undefined>, opts: HarnessOptions) {
  const fast = await runDef(nativeDef, inputs, opts);
  const slow = await runDef(tsDef, inputs, { ...opts, runs: 1 });
  expect(fast.implementation).toBe('onednn');
  const at = firstDifference(fast.outputs[0], slow.outputs[0]);
  if (at >= 0) throw new Error(`${nativeDef.opType} ${JSON.stringify(opts.attributes)} [${inputs[0]!.dims.join(', ')}]: element ${at}: native ${(fast.outputs[0].data as ArrayLike<number>)[at]}, ts ${(slow.outputs[0].data as ArrayLike<number>)[at]}`);
  return fast.outputs[0];
}

type Int8 = 'uint8' | 'int8';

interface ConvCase {
  x: number[];
  w: number[];
  attributes?: Record<string, Attr>;
}

const CASES: ConvCase[] = [
  { x: [1, 16, 9, 11], w: [24, 16, 3, 3], attributes: { pads: [1, 1, 1, 1] } },
  { x: [2, 8, 12, 10], w: [16, 8, 5, 3], attributes: { pads: [2, 0, 1, 2], strides: [2, 1] } },
  { x: [1, 12, 13, 13], w: [12, 4, 3, 3], attributes: { group: 3, dilations: [2, 2], pads: [2, 2, 2, 2] } },
  { x: [1, 16, 10, 10], w: [16, 1, 3, 3], attributes: { group: 16, pads: [1, 1, 1, 1], strides: [2, 2] } }, // depthwise
  { x: [2, 32, 7, 7], w: [20, 32, 1, 1] },
  { x: [1, 6, 9, 8], w: [10, 6, 3, 3], attributes: { auto_pad: 'SAME_UPPER', strides: [2, 2] } },
  { x: [2, 10, 31], w: [7, 10, 4], attributes: { pads: [3, 1], strides: [3] } }, // 1-D
  { x: [1, 4, 5, 6, 7], w: [6, 4, 3, 2, 3], attributes: { pads: [1, 0, 1, 1, 1, 1] } }, // 3-D
];

describe.skipIf(!binding)('native int8 convolutions vs the TS kernels', () => {
  it('ConvInteger: identical int32 for every type mix, zero-point form, geometry and rank', async () => {
    let seed = 1;
    for (const c of CASES) {
      for (const [xt, wt] of [['uint8', 'uint8'], ['uint8', 'int8'], ['int8', 'int8'], ['int8', 'uint8']] as [Int8, Int8][]) {
        const x = randomInts(xt, c.x, seed++);
        const w = randomInts(wt, c.w, seed++);
        const perChannel = randomInts(wt, [c.w[0]], seed++);
        for (const [xz, wz] of [[undefined, undefined], [randomInts(xt, [], seed++), randomInts(wt, [], seed++)], [randomInts(xt, [1], seed++), perChannel]]) {
          await expectSame(def('ConvInteger'), convIntegerKernel, [x, w, xz, wz], { attributes: c.attributes, constants: [1, 3] });
        }
      }
    }
  });

  it('ConvInteger: extreme values (sums past 2^24, products that saturate int16 without VNNI) stay exact', async () => {
    const x = new Tensor('uint8', new Uint8Array(1 * 128 * 6 * 6).fill(255), [1, 128, 6, 6]);
    const w = new Tensor('int8', new Int8Array(8 * 128 * 3 * 3).fill(-128), [8, 128, 3, 3]);
    (w.data as Int8Array)[5] = 127;
    const y = await expectSame(def('ConvInteger'), convIntegerKernel, [x, w, undefined, undefined], { attributes: { pads: [1, 1, 1, 1] }, constants: [1] });
    const v = y.data as Int32Array;
    expect(Math.min(...v)).toBeLessThan(-(2 ** 24)); // 255 · -128 · 1152 ≈ -3.8e7: past float32's exact integers
    // And with zero points making every difference maximal: (255 - 0) · (0 - 255) for uint8 weights.
    const wu = new Tensor('uint8', new Uint8Array(8 * 128 * 3 * 3), [8, 128, 3, 3]);
    await expectSame(def('ConvInteger'), convIntegerKernel, [x, wu, scalarTensor('uint8', 0), scalarTensor('uint8', 255)], { attributes: { pads: [1, 1, 1, 1] }, constants: [1, 3] });
    // Grouped too. Where oneDNN's kernel rounds its sums through float32 (AVX2's jit_uni_int8; AVX-512 VNNI
    // picks brgconv, which does not), the input channels run in chunks whose sums stay below 2^24.
    const xg = new Tensor('uint8', new Uint8Array(1 * 256 * 6 * 6).fill(255), [1, 256, 6, 6]);
    const wg = new Tensor('int8', new Int8Array(8 * 128 * 3 * 3).fill(-128), [8, 128, 3, 3]);
    await expectSame(def('ConvInteger'), convIntegerKernel, [xg, wg, scalarTensor('uint8', 1), undefined], { attributes: { pads: [1, 1, 1, 1], group: 2 }, constants: [1] });
    const probe = (group: number, xDims: number[], weights: Int8Array) => {
      const conv = new binding!.ConvIntegerPrimitive!({ inputDims: xDims, weightDims: [8, 128, 3, 3], group, padsBegin: [1, 1], padsEnd: [1, 1], weights });
      const implementation = conv.implementation;
      conv.dispose();
      return implementation;
    };
    if (isaFamily(binding) === 'avx2') {
      expect(probe(2, [1, 256, 6, 6], wg.data as Int8Array)).toMatch(/channel chunks/);
      expect(probe(1, [1, 128, 6, 6], w.data as Int8Array)).toMatch(/7-bit weight halves.*channel chunks/);
    }
    if (isaFamily(binding) === 'avx512') {
      expect(probe(2, [1, 256, 6, 6], wg.data as Int8Array)).toMatch(/^brgconv/);
      expect(probe(1, [1, 128, 6, 6], w.data as Int8Array)).toMatch(/^brgconv/);
    }
  });

  it('ConvInteger: one node serves several input shapes (dynamic H/W and batch)', async () => {
    const w = randomInts('int8', [8, 4, 3, 3], 70);
    for (const dims of [[1, 4, 8, 8], [3, 4, 5, 9], [1, 4, 8, 8]]) {
      await expectSame(def('ConvInteger'), convIntegerKernel, [randomInts('uint8', dims, dims[3]), w, scalarTensor('uint8', 3), undefined], { attributes: { pads: [1, 1, 1, 1] }, constants: [1] });
    }
  });

  it('the 7-bit weight halves (forced) give the same int32 as the TS kernel', async () => {
    const b = binding!;
    for (const [xt, wt, group] of [['uint8', 'int8', 1], ['int8', 'uint8', 2]] as [Int8, Int8, number][]) {
      const x = randomInts(xt, [2, 8, 7, 9], 80);
      const w = randomInts(wt, [6, 8 / group, 3, 3], 81);
      const wz = randomInts(wt, [6], 82);
      const xz = randomInts(xt, [], 83);
      const conv = new b.ConvIntegerPrimitive!({
        inputDims: x.dims, weightDims: w.dims, group, padsBegin: [1, 0], padsEnd: [0, 2], strides: [1, 2],
        weights: w.data as Int8Array, weightZeroPoints: wz.data as Int8Array, inputType: xt, weightSplit: 'always',
      });
      expect(conv.implementation).toContain('7-bit weight halves');
      const y = new Int32Array(conv.outputDims.reduce((p, d) => p * d, 1));
      conv.runSync(x.data as Uint8Array, xz.data as Uint8Array, y);
      conv.dispose();
      const ts = await runDef(convIntegerKernel, [x, w, xz, wz], { attributes: { group, pads: [1, 0, 0, 2], strides: [1, 2] } });
      expect(Array.from(y)).toEqual(Array.from(ts.outputs[0].data as Int32Array));
    }
  });

  it('QLinearConv and QuantizedConv (Relu folded in): identical bytes, per-tensor and per-channel scales, with and without bias', async () => {
    let seed = 100;
    for (const c of CASES.slice(0, 6)) {
      for (const [xt, wt, yt] of [['uint8', 'int8', 'uint8'], ['int8', 'int8', 'int8'], ['uint8', 'uint8', 'int8']] as [Int8, Int8, Int8][]) {
        const m = c.w[0];
        const x = randomInts(xt, c.x, seed++);
        const w = randomInts(wt, c.w, seed++);
        const fanIn = c.w.slice(1).reduce((a, d) => a * d, 1);
        const inputs = [
          x,
          scalarTensor('float32', 0.02),
          randomInts(xt, [], seed++),
          w,
          randomFloats([m], seed++, 0.001, 0.01),
          wt === 'int8' ? scalarTensor('int8', 0) : randomInts(wt, [m], seed++),
          scalarTensor('float32', 0.004 * Math.sqrt(fanIn)),
          randomInts(yt, [], seed++, yt === 'uint8' ? 100 : -20, yt === 'uint8' ? 140 : 20),
          randomInts('int32', [m], seed++, -5000, 5000),
        ];
        await expectSame(def('QLinearConv'), qLinearConvKernel, inputs, { attributes: c.attributes, constants: [3, 4, 5] });
        await expectSame(def('QLinearConv'), qLinearConvKernel, [...inputs.slice(0, 8), undefined], { attributes: c.attributes, constants: [3, 4, 5] });
        const relu = await expectSame(def('QuantizedConv'), quantizedConvKernel, inputs, { attributes: { ...c.attributes, relu: 1 }, constants: [3, 4, 5], domain: 'com.switchyard', opset: 1 });
        const zp = (inputs[7]!.data as Int8Array)[0];
        expect(Math.min(...(relu.data as Int8Array))).toBeGreaterThanOrEqual(zp);
      }
    }
  });

  it('QLinearConv: sums past 2^23 requantize as the TS kernel does (the double-precision path)', async () => {
    const x = new Tensor('uint8', new Uint8Array(1 * 128 * 5 * 5).fill(250), [1, 128, 5, 5]);
    const w = randomInts('int8', [4, 128, 3, 3], 90, 100, 127);
    (w.data as Int8Array)[0] = -128;
    // x_scale · w_scale / y_scale ≈ 2^-20: sums near 3e7 land around 30, inside uint8.
    const inputs = [x, scalarTensor('float32', 1 / 1024), scalarTensor('uint8', 0), w, randomFloats([4], 91, 0.9 / 1024, 1.1 / 1024), scalarTensor('int8', 0), scalarTensor('float32', 1), scalarTensor('uint8', 3), randomInts('int32', [4], 92, -(2 ** 24), 2 ** 24)];
    const y = await expectSame(def('QLinearConv'), qLinearConvKernel, inputs, { attributes: { pads: [1, 1, 1, 1] }, constants: [3, 4, 5] });
    expect(new Set(y.data as Uint8Array).size).toBeGreaterThan(2);
  });

  it('DynamicQuantizedConv: the fused float result equals the TS kernel (which equals the unfused graph)', async () => {
    let seed = 200;
    for (const c of CASES) {
      for (const wt of ['uint8', 'int8'] as Int8[]) {
        const m = c.w[0];
        const x = randomFloats(c.x, seed++, -3, 5);
        const w = randomInts(wt, c.w, seed++);
        const opts = { attributes: c.attributes, constants: [1, 2, 3, 4], domain: 'com.switchyard', opset: 1 };
        await expectSame(def('DynamicQuantizedConv'), dynamicQuantizedConvKernel, [x, w, randomInts(wt, [m], seed++), randomFloats([m], seed++, 0.001, 0.02), randomFloats([m], seed++)], opts);
        await expectSame(def('DynamicQuantizedConv'), dynamicQuantizedConvKernel, [x, w, undefined, scalarTensor('float32', 0.0123), undefined], opts);
        const relu = await expectSame(def('DynamicQuantizedConv'), dynamicQuantizedConvKernel, [x, w, undefined, scalarTensor('float32', 0.0123), randomFloats([m], seed++)], { ...opts, attributes: { ...c.attributes, relu: 1 } });
        expect(Math.min(...(relu.data as Float32Array))).toBeGreaterThanOrEqual(0);
      }
    }
    // An all-zero input: scale 0, the output is the bias.
    const zeros = new Tensor('float32', new Float32Array(2 * 4 * 5 * 5), [2, 4, 5, 5]);
    const y = await expectSame(def('DynamicQuantizedConv'), dynamicQuantizedConvKernel, [zeros, randomInts('int8', [3, 4, 3, 3], 1), undefined, scalarTensor('float32', 0.5), new Tensor('float32', Float32Array.of(1, 2, 3), [3])], { constants: [1, 3, 4], domain: 'com.switchyard', opset: 1 });
    expect(Array.from(new Set(y.data as Float32Array)).sort()).toEqual([1, 2, 3]);
  });

  it('outputs past 4 MiB of int32 run in bands of rows (a shorter last band too), with the same results', async () => {
    const b = binding!;
    const cases: Array<{ x: number[]; w: number[]; attributes: Record<string, Attr> }> = [
      { x: [1, 32, 181, 190], w: [32, 32, 3, 3], attributes: { pads: [1, 1, 1, 1] } },
      { x: [1, 16, 301, 240], w: [24, 16, 3, 3], attributes: { pads: [0, 1, 2, 1], strides: [2, 1] } },
      { x: [1, 8, 210000], w: [8, 8, 3], attributes: { pads: [1, 1] } }, // 1-D: bands of positions
    ];
    let seed = 400;
    for (const c of cases) {
      const x = randomInts('uint8', c.x, seed++);
      const w = randomInts('uint8', c.w, seed++);
      await expectSame(def('ConvInteger'), convIntegerKernel, [x, w, scalarTensor('uint8', 17), scalarTensor('uint8', 131)], { attributes: c.attributes, constants: [1, 3] });
    }
    const conv = new b.ConvIntegerPrimitive!({ inputDims: [1, 32, 181, 190], weightDims: [32, 32, 3, 3], padsBegin: [1, 1], padsEnd: [1, 1], weights: new Int8Array(32 * 32 * 9) });
    expect(conv.implementation).toMatch(/bands of \d+ rows/);
    conv.dispose();
  }, 120_000);

  it('large convolutions run on the oneDNN thread with the same results', async () => {
    // 64 → 64 channels, 3x3, 96x96 (2^29 is 536M; a batch of 2 makes 679M).
    const x = randomInts('uint8', [2, 64, 96, 96], 300);
    const w = randomInts('int8', [64, 64, 3, 3], 301);
    await expectSame(def('ConvInteger'), convIntegerKernel, [x, w, scalarTensor('uint8', 128), scalarTensor('int8', 3)], { attributes: { pads: [1, 1, 1, 1] }, constants: [1, 3] });
  }, 120_000);

  it('a kernel whose single input channel could reach 2^24 (33x33, extreme weights) runs exactly on either path', async () => {
    // Without VNNI, oneDNN's kernels here round sums through float32 and no chunking can help: the addon
    // answers UNSUPPORTED and the node runs on the TS kernel. With VNNI, brgconv keeps the sums exact.
    const w = new Tensor('int8', new Int8Array(2 * 33 * 33).fill(-128), [2, 1, 33, 33]);
    const x = new Tensor('uint8', new Uint8Array(40 * 40).fill(255), [1, 1, 40, 40]);
    await expectSame(def('ConvInteger'), convIntegerKernel, [x, w, undefined, undefined], { attributes: { pads: [16, 16, 16, 16] }, constants: [1] });
    const make = () => new binding!.ConvIntegerPrimitive!({ inputDims: [1, 1, 40, 40], weightDims: [2, 1, 33, 33], padsBegin: [16, 16], padsEnd: [16, 16], weights: w.data as Int8Array });
    if (isaFamily(binding) === 'avx2') expect(make).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
    else make().dispose();
  });

  it('declines runtime weights with the reason', async () => {
    await expect(runDef(def('ConvInteger'), [randomInts('uint8', [1, 2, 4, 4], 1), randomInts('int8', [2, 2, 1, 1], 2)])).rejects.toThrow(/W is not a constant initializer/);
  });

  it('bad arguments to the addon give coded errors, never a crash', () => {
    const b = binding!;
    const w = new Int8Array(4 * 2 * 3 * 3);
    const make = (o: Record<string, unknown>) => () => new b.ConvIntegerPrimitive!({ inputDims: [1, 2, 5, 5], weightDims: [4, 2, 3, 3], weights: w, ...o } as never);
    expect(make({ weights: new Float32Array(72) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Uint8Array or Int8Array') }));
    expect(make({ weights: new Int8Array(5) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('72 elements') }));
    expect(make({ weightZeroPoints: new Uint8Array(4) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining("weights' type") }));
    expect(make({ weightZeroPoints: new Int8Array(3) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(make({ inputDims: [1, 3, 5, 5] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('input channels') }));
    expect(make({ inputDims: [1, 2, 2, 2] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('smaller than the dilated kernel') }));
    expect(make({ inputDims: [1, 2, 5, 5], group: 3 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(make({ inputDims: [1e6, 2, 1e6, 5] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('2^31-1') }));
    expect(make({ inputType: 'int16' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(make({ weightSplit: 'never' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const conv = new b.ConvIntegerPrimitive!({ inputDims: [1, 2, 5, 5], weightDims: [4, 2, 3, 3], weights: w });
    const y = new Int32Array(4 * 3 * 3);
    expect(() => conv.runSync(new Int8Array(50), null, y)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('x (input') }));
    expect(() => conv.runSync(new Uint8Array(50), new Uint8Array(2), y)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('xZero') }));
    expect(() => conv.runSync(new Uint8Array(50), null, new Int32Array(3))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('y (output') }));
    conv.dispose();
    expect(() => conv.runSync(new Uint8Array(50), null, y)).toThrow(expect.objectContaining({ code: 'RELEASED' }));
    const q = new b.QLinearConvPrimitive!({ inputDims: [1, 2, 5, 5], weightDims: [4, 2, 3, 3], weights: w, outputType: 'int8' });
    expect(() => q.runSync(new Uint8Array(50), null, null, new Float32Array(3), null, new Int8Array(36))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('multipliers') }));
    expect(() => q.runSync(new Uint8Array(50), null, null, new Float32Array(4), null, new Uint8Array(36))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Int8Array') }));
    q.dispose();
    const d = new b.DynamicQuantizedConvPrimitive!({ inputDims: [1, 2, 5, 5], weightDims: [4, 2, 3, 3], weights: w });
    expect(() => d.runSync(new Float32Array(50), new Float32Array(4), new Float32Array(4), new Float32Array(36))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('hasBias') }));
    d.dispose();
  });
});
