/** Elementwise math kernels: broadcasting, dtype paths (float16, int32 wrap, int64 past 2^53, bool), edge values. */
import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, float16BitsToFloat32, float32ToFloat16Bits, type DataType, type KernelDef } from '@switchyard/core';
import { buildModel, runKernel, type RunKernelOptions } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { addKernel } from '../kernels/Add.js';
import { andKernel } from '../kernels/And.js';
import { bitShiftKernel } from '../kernels/BitShift.js';
import { clipAttributeKernel, clipKernel } from '../kernels/Clip.js';
import { divKernel } from '../kernels/Div.js';
import { equalKernel } from '../kernels/Equal.js';
import { greaterKernel } from '../kernels/Greater.js';
import { isInfKernel } from '../kernels/IsInf.js';
import { isNaNKernel } from '../kernels/IsNaN.js';
import { maxKernel } from '../kernels/Max.js';
import { meanKernel } from '../kernels/Mean.js';
import { modKernel } from '../kernels/Mod.js';
import { mulKernel } from '../kernels/Mul.js';
import { negKernel } from '../kernels/Neg.js';
import { notKernel } from '../kernels/Not.js';
import { powKernel } from '../kernels/Pow.js';
import { reluKernel } from '../kernels/Relu.js';
import { roundKernel } from '../kernels/Round.js';
import { seluKernel } from '../kernels/Selu.js';
import { erfKernel } from '../kernels/Erf.js';
import { subKernel } from '../kernels/Sub.js';
import { sumKernel } from '../kernels/Sum.js';
import { whereKernel } from '../kernels/Where.js';
import { xorKernel } from '../kernels/Xor.js';

async function run(def: KernelDef, inputs: Array<Tensor | undefined>, opts?: RunKernelOptions): Promise<Tensor> {
  const [out] = await runKernel(def, inputs, opts);
  if (!(out instanceof Tensor)) throw new Error('expected a tensor');
  return out;
}

const t = <T extends DataType>(type: T, values: readonly (number | bigint | boolean | string)[], dims?: number[]) => new Tensor(type, values, dims);
const values = (x: Tensor) => Array.from(x.data as ArrayLike<number | bigint | string>);
const f16 = (...v: number[]) => new Tensor('float16', new Uint16Array(v.map(float32ToFloat16Bits)));

describe('binary arithmetic', () => {
  it('broadcasts a row across a matrix', async () => {
    const out = await run(addKernel, [t('float32', [1, 2, 3, 4, 5, 6], [2, 3]), t('float32', [10, 20, 30], [3])]);
    expect(out.dims).toEqual([2, 3]);
    expect(values(out)).toEqual([11, 22, 33, 14, 25, 36]);
  });

  it('broadcasts both sides ([3,1] - [1,2])', async () => {
    const out = await run(subKernel, [t('int32', [1, 2, 3], [3, 1]), t('int32', [10, 20], [1, 2])]);
    expect(out.dims).toEqual([3, 2]);
    expect(values(out)).toEqual([-9, -19, -8, -18, -7, -17]);
  });

  it('handles a scalar on the left and an empty tensor', async () => {
    expect(values(await run(subKernel, [t('float64', [1], []), t('float64', [0.5, 2])]))).toEqual([0.5, -1]);
    const empty = await run(addKernel, [t('float32', [], [0, 3]), t('float32', [1, 2, 3])]);
    expect(empty.dims).toEqual([0, 3]);
  });

  it('wraps int32 products like C (Math.imul, not a rounded double)', async () => {
    const a = 123456789;
    const b = 987654321;
    const out = await run(mulKernel, [t('int32', [a, 65536]), t('int32', [b, 65536])]);
    expect(values(out)).toEqual([Number(BigInt.asIntN(32, BigInt(a) * BigInt(b))), 0]);
  });

  it('wraps uint8 sums', async () => {
    expect(values(await run(addKernel, [t('uint8', [250, 3]), t('uint8', [10, 4])]))).toEqual([4, 7]);
  });

  it('keeps int64 exact beyond 2^53 and wraps at 2^63', async () => {
    const big = 2n ** 62n + 1n;
    const out = await run(addKernel, [t('int64', [big, 9223372036854775807n, 5n]), t('int64', [1n, 1n, -7n])]);
    expect(values(out)).toEqual([big + 1n, -9223372036854775808n, -2n]);
    const prod = await run(mulKernel, [t('int64', [3037000499n]), t('int64', [3037000499n])]);
    expect(values(prod)).toEqual([3037000499n * 3037000499n]);
  });

  it('truncates integer division toward zero', async () => {
    expect(values(await run(divKernel, [t('int32', [-7, 7, -7]), t('int32', [2, -2, -2])]))).toEqual([-3, -3, 3]);
    expect(values(await run(divKernel, [t('int64', [-7n, 2n ** 60n + 3n]), t('int64', [2n, 2n])]))).toEqual([-3n, 2n ** 59n + 1n]);
  });

  it('reports int64 division by zero as a SwitchyardError', async () => {
    await expect(run(divKernel, [t('int64', [1n]), t('int64', [0n])])).rejects.toBeInstanceOf(SwitchyardError);
  });

  it('follows IEEE for float division (±0, ±Inf, NaN)', async () => {
    const out = await run(divKernel, [t('float32', [1, -1, 0]), t('float32', [0, 0, 0])]);
    expect(values(out)).toEqual([Infinity, -Infinity, NaN]);
  });

  it('computes float16 in float32 and rounds back', async () => {
    // 2 + 2^-10 lies halfway between two float16 values and rounds to the even one, 2.
    const out = await run(addKernel, [f16(1.5, 65504, 2), f16(2.25, 65504, 0.0009765625)]);
    expect(out.type).toBe('float16');
    expect(Array.from(out.data as Uint16Array, float16BitsToFloat32)).toEqual([3.75, Infinity, 2]);
  });

  it('refuses mixed element types and unbroadcastable shapes', async () => {
    await expect(run(addKernel, [t('float32', [1]), t('float64', [1])])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(run(addKernel, [t('float32', [1, 2]), t('float32', [1, 2, 3])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('supports pre-opset-7 broadcasting with an axis', async () => {
    const a = t('float32', [1, 2, 3, 4, 5, 6], [2, 3]);
    const out = await run(addKernel, [a, t('float32', [10, 20])], { opset: 6, attributes: { broadcast: 1, axis: 0 } });
    expect(values(out)).toEqual([11, 12, 13, 24, 25, 26]);
  });
});

describe('Mod', () => {
  it('takes the divisor sign when fmod=0 and the dividend sign when fmod=1', async () => {
    const a = t('int32', [-7, 7, -7, 7]);
    const b = t('int32', [3, -3, -3, 3]);
    expect(values(await run(modKernel, [a, b]))).toEqual([2, -2, -1, 1]);
    expect(values(await run(modKernel, [a, b], { attributes: { fmod: 1 } }))).toEqual([-1, 1, -1, 1]);
  });
  it('is exact for int64 beyond 2^53', async () => {
    const x = -(2n ** 60n) - 5n;
    expect(values(await run(modKernel, [t('int64', [x]), t('int64', [7n])]))).toEqual([((x % 7n) + 7n) % 7n]);
  });
  it('computes float fmod', async () => {
    expect(values(await run(modKernel, [t('float64', [-4.5, 5.5]), t('float64', [2, -2])], { attributes: { fmod: 1 } }))).toEqual([-0.5, 1.5]);
  });
});

describe('Pow', () => {
  it('uses exact integer powers for int64, also past 2^53', async () => {
    const out = await run(powKernel, [t('int64', [3n, 2n, -3n]), t('int64', [39n, 10n, 3n])]);
    expect(values(out)).toEqual([3n ** 39n, 1024n, -27n]);
  });
  it('raises floats to int and float exponents, with the x² fast path', async () => {
    expect(values(await run(powKernel, [t('float32', [1.5, -2, 3]), t('float32', [2])]))).toEqual([2.25, 4, 9]);
    expect(values(await run(powKernel, [t('float32', [4, 9]), t('int64', [-1n, 3n])]))).toEqual([0.25, 729]);
    expect(values(await run(powKernel, [t('int32', [2, 3]), t('float32', [0.5, 2])]))).toEqual([1, 9]);
  });
});

describe('comparison and logic', () => {
  it('compares with broadcasting into bool', async () => {
    const out = await run(greaterKernel, [t('float32', [1, NaN, 3, 4], [2, 2]), t('float32', [2, 2], [2])]);
    expect(out.type).toBe('bool');
    expect(values(out)).toEqual([0, 0, 1, 1]);
  });
  it('compares int64 exactly beyond 2^53', async () => {
    const out = await run(equalKernel, [t('int64', [2n ** 60n, 2n ** 60n]), t('int64', [2n ** 60n + 1n, 2n ** 60n])]);
    expect(values(out)).toEqual([0, 1]);
  });
  it('computes And, Xor and Not on bool', async () => {
    const a = t('bool', [true, true, false, false]);
    const b = t('bool', [true, false, true, false]);
    expect(values(await run(andKernel, [a, b]))).toEqual([1, 0, 0, 0]);
    expect(values(await run(xorKernel, [a, b]))).toEqual([0, 1, 1, 0]);
    expect(values(await run(notKernel, [a]))).toEqual([0, 0, 1, 1]);
  });
  it('shifts unsigned integers, including counts past the width', async () => {
    expect(values(await run(bitShiftKernel, [t('uint8', [1, 255, 16]), t('uint8', [3, 1, 40])], { attributes: { direction: 'LEFT' } }))).toEqual([8, 254, 0]);
    expect(values(await run(bitShiftKernel, [t('uint64', [2n ** 63n]), t('uint64', [62n])], { attributes: { direction: 'RIGHT' } }))).toEqual([2n]);
  });
});

describe('unary ops', () => {
  it('rounds halves to even and keeps -0', async () => {
    const out = await run(roundKernel, [t('float32', [0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -0.2])]);
    expect(values(out)).toEqual([0, 2, 2, -0, -2, 2, -0]);
    expect(Object.is(values(out)[6], -0)).toBe(true);
  });
  it('negates int8 with wrap-around and int64 exactly', async () => {
    expect(values(await run(negKernel, [t('int8', [-128, 5])]))).toEqual([-128, -5]);
    expect(values(await run(negKernel, [t('int64', [-(2n ** 62n) - 1n])]))).toEqual([2n ** 62n + 1n]);
  });
  it('detects NaN and infinities', async () => {
    const x = t('float32', [NaN, Infinity, -Infinity, 1]);
    expect(values(await run(isNaNKernel, [x]))).toEqual([1, 0, 0, 0]);
    expect(values(await run(isInfKernel, [x]))).toEqual([0, 1, 1, 0]);
    expect(values(await run(isInfKernel, [x], { attributes: { detect_positive: 0 } }))).toEqual([0, 0, 1, 0]);
  });
  it('passes NaN through Relu (float16 too) and clamps int64 negatives', async () => {
    const out = await run(reluKernel, [f16(NaN, -1, 2)]);
    expect(Array.from(out.data as Uint16Array, float16BitsToFloat32)).toEqual([NaN, 0, 2]);
    expect(values(await run(reluKernel, [t('int64', [-(2n ** 60n), 2n ** 60n + 1n])], { opset: 14 }))).toEqual([0n, 2n ** 60n + 1n]);
  });
  it('reads float attributes (Selu) and computes Erf accurately', async () => {
    const selu = values(await run(seluKernel, [t('float64', [-1, 2])], { attributes: { alpha: { float: 2 }, gamma: { float: 3 } } }));
    expect(selu[0]).toBeCloseTo(3 * 2 * (Math.exp(-1) - 1), 12);
    expect(selu[1]).toBe(6);
    const erf = values(await run(erfKernel, [t('float64', [0, 1e-8, 0.5, 1, -2, 6])])) as number[];
    const ref = [0, 1.1283791670955126e-8, 0.5204998778130465, 0.8427007929497149, -0.9953222650189527, 1];
    erf.forEach((v, i) => expect(Math.abs(v - ref[i])).toBeLessThanOrEqual(2e-7 * Math.max(1, Math.abs(ref[i]))));
  });
});

describe('variadic ops', () => {
  it('folds Sum and Max over broadcast inputs; Max propagates NaN', async () => {
    const a = t('float32', [1, 2, 3], [3]);
    const b = t('float32', [10, 20], [2, 1]);
    const c = t('float32', [100], []);
    expect(values(await run(sumKernel, [a, b, c]))).toEqual([111, 112, 113, 121, 122, 123]);
    expect(values(await run(maxKernel, [t('float32', [1, NaN]), t('float32', [2, 0])]))).toEqual([2, NaN]);
    expect(values(await run(maxKernel, [t('uint64', [2n ** 63n, 1n]), t('uint64', [1n, 2n])]))).toEqual([2n ** 63n, 2n]);
  });
  it('averages with Mean, including a single input', async () => {
    expect(values(await run(meanKernel, [t('float32', [1, 2]), t('float32', [3, 6])]))).toEqual([2, 4]);
    expect(values(await run(meanKernel, [t('float32', [1, 2])]))).toEqual([1, 2]);
  });
});

describe('Clip and Where', () => {
  it('clips with optional bound inputs (opset 11+) and keeps NaN', async () => {
    const x = t('float32', [-5, 0, 5, NaN]);
    expect(values(await run(clipKernel, [x, t('float32', [-1], []), t('float32', [1], [])], { opset: 13 }))).toEqual([-1, 0, 1, NaN]);
    expect(values(await run(clipKernel, [x, undefined, t('float32', [1], [])], { opset: 13 }))).toEqual([-5, 0, 1, NaN]);
    expect(values(await run(clipKernel, [t('int8', [-100, 100]), t('int8', [-3], [])], { opset: 13 }))).toEqual([-3, 100]);
  });
  it('clips with attributes before opset 11', async () => {
    expect(values(await run(clipAttributeKernel, [t('float32', [-5, 5])], { opset: 6, attributes: { min: { float: -1 }, max: { float: 2 } } }))).toEqual([-1, 2]);
  });
  it('clips int64 exactly with large bounds', async () => {
    const hi = 2n ** 60n;
    expect(values(await run(clipKernel, [t('int64', [2n ** 61n, 3n]), undefined, t('int64', [hi], [])], { opset: 13 }))).toEqual([hi, 3n]);
  });
  it('selects with three-way broadcasting, for strings too', async () => {
    const cond = t('bool', [true, false], [2, 1]);
    const out = await run(whereKernel, [cond, t('string', ['a', 'b', 'c']), t('string', ['z'], [])]);
    expect(out.dims).toEqual([2, 3]);
    expect(values(out)).toEqual(['a', 'b', 'c', 'z', 'z', 'z']);
    const ints = await run(whereKernel, [t('bool', [true, false]), t('int64', [2n ** 62n, 1n]), t('int64', [0n, -1n])]);
    expect(values(ints)).toEqual([2n ** 62n, -1n]);
  });
});

describe('binary kernels across runs of one session', () => {
  it('re-plans when the shapes change between runs (the kernel remembers its last plan)', async () => {
    const model = buildModel({
      inputs: [['a', 'float32', ['n', 'm']], ['b', 'float32', ['k']]],
      outputs: [['y', 'float32']],
      nodes: [{ op: 'Sub', inputs: ['a', 'b'], outputs: ['y'] }],
    });
    const s = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider({ useNative: false })] });
    try {
      const f32 = (v: number[], dims: number[]) => new Tensor('float32', Float32Array.from(v), dims);
      const cases: Array<[Tensor, Tensor, number[], number[]]> = [
        [f32([1, 2, 3, 4, 5, 6], [2, 3]), f32([1, 1, 1], [3]), [2, 3], [0, 1, 2, 3, 4, 5]],
        [f32([1, 2, 3, 4, 5, 6], [3, 2]), f32([1, 2], [2]), [3, 2], [0, 0, 2, 2, 4, 4]],
        [f32([1, 2, 3, 4, 5, 6], [6, 1]), f32([1, 2], [2]), [6, 2], [0, -1, 1, 0, 2, 1, 3, 2, 4, 3, 5, 4]],
        [f32([1, 2, 3, 4, 5, 6], [2, 3]), f32([1, 1, 1], [3]), [2, 3], [0, 1, 2, 3, 4, 5]],
      ];
      for (const [a, b, dims, want] of cases) {
        const y = (await s.run({ a, b })).y as Tensor;
        expect(y.dims).toEqual(dims);
        expect(Array.from(y.data as Float32Array)).toEqual(want);
      }
    } finally {
      await s.release();
    }
  });
});
