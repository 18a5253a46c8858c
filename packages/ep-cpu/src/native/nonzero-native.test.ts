/**
 * The native NonZero (`nonZeroCount` + `nonZeroFill`) against the TS kernel: every numeric dtype and bool with
 * edge values (zeros of both signs, NaN, half-float bit patterns), ranks 0 to 4, and coded errors.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, type DataType } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { compareDefs, defPair, randomTensor, rng } from './native-harness.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.nonZeroCount ? native.binding : undefined;

describe.skipIf(!binding)('native NonZero vs the TS kernel', () => {
  const DTYPES: DataType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

  it('every dtype, ranks 0 to 4, with edge values', async () => {
    const r = rng(5);
    const pair = defPair(binding!, 'NonZero', 13);
    for (const dtype of DTYPES) {
      for (const dims of [[], [37], [4, 9], [3, 1, 5], [2, 3, 4, 5]]) {
        await compareDefs(pair, [randomTensor(dtype, dims, r, true)], { opset: 13 }, `${dtype} [${dims}]`);
      }
    }
  });

  it('-0 is zero and NaN is not, in float32 and float16 bits', async () => {
    const pair = defPair(binding!, 'NonZero', 13);
    await compareDefs(pair, [new Tensor('float32', Float32Array.of(0, -0, NaN, 1, -0, 0), [6])], { opset: 13 }, 'float32 signed zeros');
    await compareDefs(pair, [new Tensor('float16', Uint16Array.of(0x0000, 0x8000, 0x7e00, 0x3c00, 0x0001), [5])], { opset: 13 }, 'float16 bits');
  });

  it('rejects bad arguments with coded errors', () => {
    const b = binding!;
    const x = Float32Array.of(1, 0, 2, 0, 3, 0);
    const coded = expect.objectContaining({ code: 'INVALID_ARGUMENT' });
    expect(b.nonZeroCount!(x, 'float32', [2, 3])).toBe(3);
    expect(() => b.nonZeroCount!(x, 'complex64' as 'float32', [2, 3])).toThrow(coded);
    expect(() => b.nonZeroCount!(x, 'float64', [2, 3])).toThrow(coded); // not the storage of float64
    expect(() => b.nonZeroCount!(x, 'float32', [4, 3])).toThrow(coded);
    expect(() => b.nonZeroFill!(x, 'float32', [2, 3], new BigInt64Array(4))).toThrow(coded); // 2 per axis: x has 3
    expect(() => b.nonZeroFill!(x, 'float32', [2, 3], new BigInt64Array(8))).toThrow(coded);
    const out = new BigInt64Array(6);
    b.nonZeroFill!(x, 'float32', [2, 3], out);
    expect(Array.from(out, Number)).toEqual([0, 0, 1, 0, 2, 1]);
  });
});
