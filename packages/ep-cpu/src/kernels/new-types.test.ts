/**
 * Kernels over the element types of ONNX 1.15–1.23 (float8, 4-bit, 2-bit, float4) and the newer
 * attributes that go with them. Every expected value below was computed once with onnx 1.23.1's
 * reference evaluator (onnx.reference.ReferenceEvaluator in /tmp/o123/venv) on the same inputs.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, bfloat16BitsToFloat32, float16BitsToFloat32, float32ToFloat16Bits, type DataType } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { quantizeLinearKernel } from './QuantizeLinear.js';
import { dequantizeLinearKernel } from './DequantizeLinear.js';
import { qLinearMatMulKernel } from './QLinearMatMul.js';
import { bitShiftKernel } from './BitShift.js';
import { bitCastKernel } from './BitCast.js';
import { castKernel } from './Cast.js';
import { reduceMaxKernel } from './ReduceMax.js';
import { reduceMinKernel } from './ReduceMin.js';
import { asTensor } from '../nn/test-helpers.js';

const ONNX = { INT32: 6, BFLOAT16: 16, FLOAT8E5M2: 19, INT4: 22, FLOAT8E8M0: 24, UINT2: 25, FLOAT16: 10, FLOAT: 1 };
const values = (v: unknown) => Array.from(asTensor(v as Tensor).data as ArrayLike<number | bigint>);
const half = (vs: number[]) => new Tensor('float16', Uint16Array.from(vs, float32ToFloat16Bits), [vs.length]);

describe('QuantizeLinear / DequantizeLinear, opset 21+', () => {
  const x = new Tensor('float32', [0.3, -1.7, 2.5, 6.2, -9.0, 1.1, 0.0, -0.49, 3.5, 7.9], [2, 5]);
  const scale = new Tensor('float32', [0.5, 2.0, 1.0, 0.25], [2, 2]);

  it('blocked int4 with a blocked zero point (block_size 3 over axis 1, last block short)', async () => {
    const zp = new Tensor('int4', [1, -2, 0, 3], [2, 2]);
    const [y] = await runKernel(quantizeLinearKernel, [x, scale, zp], { opset: 21, attributes: { axis: 1, block_size: 3 } });
    expect(asTensor(y).type).toBe('int4');
    expect(values(y)).toEqual([2, -2, 6, 1, -6, 1, 0, 0, 7, 7]);
  });

  it('output_dtype picks uint2 without a zero point', async () => {
    const [y] = await runKernel(quantizeLinearKernel, [x, scale], { opset: 21, attributes: { axis: 1, block_size: 3, output_dtype: ONNX.UINT2 } });
    expect(asTensor(y).type).toBe('uint2');
    expect(values(y)).toEqual([1, 0, 3, 3, 0, 1, 0, 0, 3, 3]);
  });

  it('float8e4m3fn output saturates unless saturate = 0', async () => {
    const big = new Tensor('float32', Array.from(x.data as Float32Array, (v) => v * 100), [2, 5]);
    const inputs = [big, new Tensor('float32', [0.5], []), new Tensor('float8e4m3fn', [0], [])];
    const [sat] = await runKernel(quantizeLinearKernel, inputs, { opset: 21 });
    expect(values(sat)).toEqual([103, 251, 126, 126, 254, 118, 0, 236, 126, 126]);
    const [plain] = await runKernel(quantizeLinearKernel, inputs, { opset: 21, attributes: { saturate: 0 } });
    expect(values(plain)).toEqual([103, 251, 127, 127, 255, 118, 0, 236, 127, 127]);
  });

  it('blocked int4 dequantization with float16 scales gives float16, or output_dtype float32', async () => {
    const xq = new Tensor('int4', [-8, 7, 3, -1, 0, 5, -3, 2, 1, -6], [2, 5]);
    const s16 = new Tensor('float16', Uint16Array.from([0.5, 2, 1, 0.25], float32ToFloat16Bits), [2, 2]);
    const zq = new Tensor('int4', [1, -2, 0, 3], [2, 2]);
    const expected = [-4.5, 3, 1, 2, 4, 5, -3, 2, -0.5, -2.25];
    const [y16] = await runKernel(dequantizeLinearKernel, [xq, s16, zq], { opset: 21, attributes: { axis: 1, block_size: 3 } });
    expect(asTensor(y16).type).toBe('float16');
    expect(values(y16).map((b) => float16BitsToFloat32(b as number))).toEqual(expected);
    const [y32] = await runKernel(dequantizeLinearKernel, [xq, s16, zq], { opset: 23, attributes: { axis: 1, block_size: 3, output_dtype: ONNX.FLOAT } });
    expect(asTensor(y32).type).toBe('float32');
    expect(values(y32)).toEqual(expected);
  });

  it('a blocked scale of the wrong shape is a coded error', async () => {
    const bad = new Tensor('float32', [1, 1, 1], [1, 3]);
    await expect(runKernel(quantizeLinearKernel, [x, bad], { opset: 21, attributes: { axis: 1, block_size: 3 } })).rejects.toThrow(/must have shape \[2, 2\]/);
  });
});

describe('QLinearMatMul with float16 scales (opset 21)', () => {
  it('requantizes as the reference does', async () => {
    const one = (type: DataType, v: number) => (type === 'float16' ? new Tensor('float16', [float32ToFloat16Bits(v)], []) : new Tensor(type, [v], []));
    const A = new Tensor('uint8', [1, 2, 3, 4], [2, 2]);
    const B = new Tensor('uint8', [5, 6, 7, 8], [2, 2]);
    const inputs = [A, one('float16', 0.05), one('uint8', 1), B, one('float16', 0.1), one('uint8', 2), one('float16', 0.03), one('uint8', 10)];
    const [y] = await runKernel(qLinearMatMulKernel, inputs, { opset: 21 });
    expect(values(y)).toEqual([11, 11, 13, 14]);
  });
});

describe('BitShift over signed integers', () => {
  it('int8: overflow wraps, counts that are negative or past the width give 0 / the sign', async () => {
    const a = new Tensor('int8', [-128, -5, 64, 1, 127], [5]);
    const b = new Tensor('int8', [1, 1, 1, 9, -1], [5]);
    expect(values((await runKernel(bitShiftKernel, [a, b], { opset: 26, attributes: { direction: 'LEFT' } }))[0])).toEqual([0, -10, -128, 0, 0]);
    expect(values((await runKernel(bitShiftKernel, [a, b], { opset: 26, attributes: { direction: 'RIGHT' } }))[0])).toEqual([-64, -3, 32, 0, 0]);
  });
  it('int64 in BigInt arithmetic', async () => {
    const a = new Tensor('int64', [-(2n ** 62n), -5n, 3n], [3]);
    const b = new Tensor('int64', [1n, 64n, 2n], [3]);
    expect(values((await runKernel(bitShiftKernel, [a, b], { opset: 26, attributes: { direction: 'LEFT' } }))[0])).toEqual([-(2n ** 63n), 0n, 12n]);
    expect(values((await runKernel(bitShiftKernel, [a, b], { opset: 26, attributes: { direction: 'RIGHT' } }))[0])).toEqual([-(2n ** 61n), -1n, 0n]);
  });
});

describe('BitCast', () => {
  it('reinterprets bits of equal width, sub-byte types included', async () => {
    const f = new Tensor('float32', [1, -2.5, Infinity], [3]);
    expect(values((await runKernel(bitCastKernel, [f], { opset: 26, attributes: { to: ONNX.INT32 } }))[0])).toEqual([1065353216, -1071644672, 2139095040]);
    const u4 = new Tensor('uint4', [0, 7, 8, 15], [4]);
    expect(values((await runKernel(bitCastKernel, [u4], { opset: 26, attributes: { to: ONNX.INT4 } }))[0])).toEqual([0, 7, -8, -1]);
    const [bf] = await runKernel(bitCastKernel, [half([1, -2])], { opset: 26, attributes: { to: ONNX.BFLOAT16 } });
    expect(values(bf)).toEqual([15360, 49152]);
    expect(values(bf).map((b) => bfloat16BitsToFloat32(b as number))).toEqual([0.0078125, -2]); // 0x3C00 read as bfloat16 is 2^-7
  });
  it('refuses types of different widths', async () => {
    await expect(runKernel(bitCastKernel, [new Tensor('int8', [1], [1])], { opset: 26, attributes: { to: ONNX.INT32 } })).rejects.toThrow(/differ in width/);
  });
});

describe('Cast into the new types', () => {
  it('float → int4 / uint2 truncate and wrap (ml_dtypes astype)', async () => {
    const x = new Tensor('float32', [-9.7, -8.5, 7.6, 8, 15.5, 300, -2.5], [7]);
    expect(values((await runKernel(castKernel, [x], { opset: 25, attributes: { to: ONNX.INT4 } }))[0])).toEqual([7, -8, 7, -8, -1, -4, -2]);
    const y = new Tensor('float32', [-1, 3.9, 4, 5.5, 2], [5]);
    expect(values((await runKernel(castKernel, [y], { opset: 25, attributes: { to: ONNX.UINT2 } }))[0])).toEqual([3, 3, 0, 1, 2]);
  });
  it('float → float8e5m2 with saturate = 0 overflows to Inf; e8m0 rounds per round_mode', async () => {
    const x = new Tensor('float32', [1e6, -1e6, Infinity, 57344, 61440], [5]);
    expect(values((await runKernel(castKernel, [x], { opset: 25, attributes: { to: ONNX.FLOAT8E5M2, saturate: 0 } }))[0])).toEqual([124, 252, 124, 123, 124]);
    const y = new Tensor('float32', [3, 5, 1.4, 0.7], [4]);
    expect(values((await runKernel(castKernel, [y], { opset: 25, attributes: { to: ONNX.FLOAT8E8M0, round_mode: 'nearest' } }))[0])).toEqual([129, 129, 127, 126]);
  });
  it('float8e4m3fnuz → float16: 0x80 is the one NaN', async () => {
    const x = new Tensor('float8e4m3fnuz', [0x80, 0x7f, 0x01, 0xff], [4]);
    const [y] = await runKernel(castKernel, [x], { opset: 25, attributes: { to: ONNX.FLOAT16 } });
    expect(values(y).map((b) => float16BitsToFloat32(b as number))).toEqual([NaN, 240, 0.0009765625, -240]);
  });
});

describe('ReduceMax / ReduceMin over bool (opset 20)', () => {
  it('reduce like or / and; an empty reduction gives false / true', async () => {
    const x = new Tensor('bool', [1, 1, 1, 0, 0, 1, 0, 0], [4, 2]);
    const axes = new Tensor('int64', [1n], [1]);
    expect(values((await runKernel(reduceMaxKernel, [x, axes], { opset: 20 }))[0])).toEqual([1, 1, 1, 0]);
    expect(values((await runKernel(reduceMinKernel, [x, axes], { opset: 20 }))[0])).toEqual([1, 0, 0, 0]);
    const empty = new Tensor('bool', new Uint8Array(0), [2, 0, 4]);
    expect(values((await runKernel(reduceMaxKernel, [empty, axes], { opset: 20 }))[0])).toEqual(new Array(8).fill(0));
    expect(values((await runKernel(reduceMinKernel, [empty, axes], { opset: 20 }))[0])).toEqual(new Array(8).fill(1));
  });
});
