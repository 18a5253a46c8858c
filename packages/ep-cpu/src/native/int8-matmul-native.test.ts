/**
 * The native int8 matrix products against the TS kernels: MatMulInteger's int32 results identical for
 * every uint8/int8 mix and zero-point form (per tensor, per row of A, per column of B), batch dims and
 * 1-D A, sums past 2^24; QLinearMatMul / QuantizedMatMul bytes and DynamicQuantizedMatMul floats
 * identical; the 7-bit halves forced; the oneDNN-thread path; coded errors.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, type KernelDef } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { nativeInt8MatMulKernels } from './int8-matmul-native.js';
import { matMulIntegerKernel } from '../kernels/MatMulInteger.js';
import { qLinearMatMulKernel } from '../kernels/QLinearMatMul.js';
import { quantizedMatMulKernel } from '../kernels/QuantizedMatMul.js';
import { dynamicQuantizedMatMulKernel } from '../kernels/DynamicQuantizedMatMul.js';
import { firstDifference, randomFloats, randomInts, runDef, scalarTensor, type HarnessOptions } from './int8-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok ? native.binding : undefined;
const defs = binding ? nativeInt8MatMulKernels(binding) : [];
const def = (op: string) => defs.find((d) => d.opType === op)!;

async function expectSame(nativeDef: KernelDef, tsDef: KernelDef, inputs: Array<Tensor | undefined>, opts: HarnessOptions) {
  const fast = await runDef(nativeDef, inputs, opts);
  const slow = await runDef(tsDef, inputs, opts);
  expect(fast.implementation).toBe('onednn');
  const at = firstDifference(fast.outputs[0], slow.outputs[0]);
  if (at >= 0) throw new Error(`${nativeDef.opType} A [${inputs[0]!.dims.join(', ')}]: element ${at}: native ${(fast.outputs[0].data as ArrayLike<number>)[at]}, ts ${(slow.outputs[0].data as ArrayLike<number>)[at]}`);
  return fast.outputs[0];
}

type Int8 = 'uint8' | 'int8';
const SHAPES: Array<[number[], number]> = [
  [[5, 24], 7], // A [M, K] · B [K, N]
  [[2, 3, 9, 40], 33], // batch dims fold into rows
  [[17], 12], // 1-D A: one row, the output drops it
  [[64, 129], 80],
];

describe.skipIf(!binding)('native int8 matrix products vs the TS kernels', () => {
  it('MatMulInteger: identical int32 for every type mix and zero-point form', async () => {
    let seed = 1;
    for (const [aDims, n] of SHAPES) {
      const k = aDims[aDims.length - 1];
      const m = aDims.length >= 2 ? aDims[aDims.length - 2] : 1;
      for (const [at, bt] of [['uint8', 'int8'], ['uint8', 'uint8'], ['int8', 'int8'], ['int8', 'uint8']] as [Int8, Int8][]) {
        const a = randomInts(at, aDims, seed++);
        const b = randomInts(bt, [k, n], seed++);
        const zeroForms: Array<[Tensor | undefined, Tensor | undefined]> = [
          [undefined, undefined],
          [randomInts(at, [], seed++), randomInts(bt, [], seed++)],
          [randomInts(at, [m], seed++), randomInts(bt, [n], seed++)],
        ];
        for (const [az, bz] of zeroForms) await expectSame(def('MatMulInteger'), matMulIntegerKernel, [a, b, az, bz], { constants: [1, 3] });
      }
    }
  });

  it('MatMulInteger: sums past 2^24 and products that would saturate int16 stay exact', async () => {
    const a = new Tensor('uint8', new Uint8Array(8 * 1500).fill(255), [8, 1500]);
    const b = new Tensor('int8', new Int8Array(1500 * 20).fill(-128), [1500, 20]);
    (b.data as Int8Array)[7] = 127;
    const y = await expectSame(def('MatMulInteger'), matMulIntegerKernel, [a, b, undefined, undefined], { constants: [1] });
    expect(Math.min(...(y.data as Int32Array))).toBeLessThan(-(2 ** 24));
    const bu = new Tensor('uint8', new Uint8Array(1500 * 20), [1500, 20]);
    await expectSame(def('MatMulInteger'), matMulIntegerKernel, [a, bu, scalarTensor('uint8', 0), scalarTensor('uint8', 255)], { constants: [1, 3] });
  });

  it('the 7-bit halves (forced) give the same int32 as the TS kernel', async () => {
    const a = randomInts('int8', [3, 5, 31], 50);
    const b = randomInts('uint8', [31, 9], 51);
    const az = randomInts('int8', [5], 52);
    const bz = randomInts('uint8', [9], 53);
    const mm = new binding!.MatMulIntegerPrimitive!({ aDims: a.dims, bDims: b.dims, weights: b.data as Uint8Array, weightZeroPoints: bz.data as Uint8Array, inputType: 'int8', aZeroPointCount: 5, weightSplit: 'always' });
    expect(mm.implementation).toContain('7-bit weight halves');
    const y = new Int32Array(3 * 5 * 9);
    mm.runSync(a.data as Int8Array, az.data as Int8Array, y);
    mm.dispose();
    const ts = await runDef(matMulIntegerKernel, [a, b, az, bz]);
    expect(Array.from(y)).toEqual(Array.from(ts.outputs[0].data as Int32Array));
  });

  it('QLinearMatMul and QuantizedMatMul (bias, Relu folded in): identical bytes', async () => {
    let seed = 100;
    for (const [aDims, n] of SHAPES) {
      const k = aDims[aDims.length - 1];
      for (const [at, bt, yt] of [['uint8', 'int8', 'uint8'], ['int8', 'int8', 'int8'], ['uint8', 'uint8', 'int8']] as [Int8, Int8, Int8][]) {
        const inputs = [
          randomInts(at, aDims, seed++),
          scalarTensor('float32', 0.03),
          randomInts(at, [], seed++),
          randomInts(bt, [k, n], seed++),
          randomFloats([n], seed++, 0.002, 0.02),
          bt === 'int8' ? scalarTensor('int8', 0) : randomInts(bt, [n], seed++),
          scalarTensor('float32', 0.01 * Math.sqrt(k)),
          randomInts(yt, [], seed++, yt === 'uint8' ? 100 : -20, yt === 'uint8' ? 140 : 20),
        ];
        await expectSame(def('QLinearMatMul'), qLinearMatMulKernel, inputs, { constants: [3, 4, 5] });
        const bias = randomInts('int32', [n], seed++, -3000, 3000);
        const relu = await expectSame(def('QuantizedMatMul'), quantizedMatMulKernel, [...inputs, bias], { constants: [3, 4, 5, 8], attributes: { relu: 1 }, domain: 'com.switchyard', opset: 1 });
        expect(Math.min(...(relu.data as Int8Array))).toBeGreaterThanOrEqual((inputs[7].data as Int8Array)[0]);
        await expectSame(def('QuantizedMatMul'), quantizedMatMulKernel, [...inputs, bias], { constants: [3, 4, 5, 8], domain: 'com.switchyard', opset: 1 });
      }
    }
  });

  it('DynamicQuantizedMatMul: the fused float result equals the TS kernel (which equals the unfused graph)', async () => {
    let seed = 200;
    for (const [aDims, n] of SHAPES) {
      const k = aDims[aDims.length - 1];
      for (const bt of ['uint8', 'int8'] as Int8[]) {
        const opts = { constants: [1, 2, 3, 4], domain: 'com.switchyard', opset: 1 };
        const a = randomFloats(aDims, seed++, -2, 3);
        const b = randomInts(bt, [k, n], seed++);
        await expectSame(def('DynamicQuantizedMatMul'), dynamicQuantizedMatMulKernel, [a, b, randomInts(bt, [n], seed++), randomFloats([n], seed++, 0.001, 0.01), randomFloats([n], seed++)], opts);
        await expectSame(def('DynamicQuantizedMatMul'), dynamicQuantizedMatMulKernel, [a, b, undefined, scalarTensor('float32', 0.004), undefined], opts);
        await expectSame(def('DynamicQuantizedMatMul'), dynamicQuantizedMatMulKernel, [a, b, undefined, scalarTensor('float32', 0.004), randomFloats([n], seed++)], { ...opts, attributes: { relu: 1 } });
      }
    }
  });

  it('large products run on the oneDNN thread with the same results', async () => {
    // 4096 x 1024 x 160: 671M multiply-adds, above the inline bound.
    const a = randomInts('uint8', [4096, 1024], 300);
    const b = randomInts('int8', [1024, 160], 301);
    await expectSame(def('MatMulInteger'), matMulIntegerKernel, [a, b, scalarTensor('uint8', 7), randomInts('int8', [160], 302)], { constants: [1, 3] });
  }, 120_000);

  it('declines a runtime or batched B with the reason', async () => {
    await expect(runDef(def('MatMulInteger'), [randomInts('uint8', [2, 4], 1), randomInts('int8', [4, 3], 2)])).rejects.toThrow(/B is not a constant initializer/);
    await expect(runDef(def('MatMulInteger'), [randomInts('uint8', [2, 2, 4], 1), randomInts('int8', [2, 4, 3], 2)], { constants: [1] })).rejects.toThrow(/B has rank 3/);
  });

  it('bad arguments to the addon give coded errors, never a crash', () => {
    const b = binding!;
    const w = new Int8Array(6 * 4);
    const make = (o: Record<string, unknown>) => () => new b.MatMulIntegerPrimitive!({ aDims: [3, 6], bDims: [6, 4], weights: w, ...o } as never);
    expect(make({ aDims: [3, 5] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('inner dimensions') }));
    expect(make({ aDims: [6] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('rank >= 2') }));
    expect(make({ bDims: [6, 4, 1] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(make({ weights: new Uint8Array(5) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('24 elements') }));
    expect(make({ aZeroPointCount: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('a_zero_point') }));
    expect(make({ aDims: [70000, 70000, 6] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('2^31-1') }));
    const mm = new b.MatMulIntegerPrimitive!({ aDims: [3, 6], bDims: [6, 4], weights: w });
    expect(() => mm.runSync(new Uint8Array(17), null, new Int32Array(12))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('a (A') }));
    expect(() => mm.runSync(new Uint8Array(18), new Uint8Array(3), new Int32Array(12))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('aZero') }));
    expect(() => mm.runSync(new Uint8Array(18), null, new Float32Array(12) as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Int32Array') }));
    mm.dispose();
    expect(() => mm.runSync(new Uint8Array(18), null, new Int32Array(12))).toThrow(expect.objectContaining({ code: 'RELEASED' }));
  });
});
