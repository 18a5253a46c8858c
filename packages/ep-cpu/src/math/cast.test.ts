/** Cast / CastLike: C-cast semantics between numeric types, bool, strings and 16-bit floats. */
import { describe, expect, it } from 'vitest';
import { ONNX_DATA_TYPE, SwitchyardError, Tensor, float16BitsToFloat32, type DataType } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { castKernel } from '../kernels/Cast.js';
import { castLikeKernel } from '../kernels/CastLike.js';

async function cast(x: Tensor, to: DataType): Promise<Tensor> {
  const [out] = await runKernel(castKernel, [x], { attributes: { to: ONNX_DATA_TYPE[to] } });
  if (!(out instanceof Tensor)) throw new Error('expected a tensor');
  return out;
}
const values = (x: Tensor) => Array.from(x.data as ArrayLike<number | bigint | string>);

describe('Cast', () => {
  it('truncates floats toward zero and wraps integers', async () => {
    const x = new Tensor('float32', [-1.7, 1.7, 300, -1]);
    expect(values(await cast(x, 'int32'))).toEqual([-1, 1, 300, -1]);
    expect(values(await cast(x, 'uint8'))).toEqual([255, 1, 44, 255]);
    expect(values(await cast(x, 'int64'))).toEqual([-1n, 1n, 300n, -1n]);
  });
  it('maps non-zero (and NaN) to true', async () => {
    expect(values(await cast(new Tensor('float32', [0, -0, NaN, 0.1]), 'bool'))).toEqual([0, 0, 1, 1]);
  });
  it('keeps int64 beyond 2^53 exact between 64-bit types and wraps into int32', async () => {
    const x = new Tensor('int64', [2n ** 60n + 7n, -1n]);
    expect(values(await cast(x, 'uint64'))).toEqual([2n ** 60n + 7n, 2n ** 64n - 1n]);
    expect(values(await cast(x, 'int32'))).toEqual([7, -1]);
    expect(values(await cast(x, 'float64'))).toEqual([2 ** 60, -1]);
  });
  it('converts float16 both ways and bool to numbers', async () => {
    const h = await cast(new Tensor('float32', [1.5, 65520, -0.1]), 'float16');
    expect(Array.from(h.data as Uint16Array, float16BitsToFloat32)).toEqual([1.5, Infinity, -0.0999755859375]);
    expect(values(await cast(h, 'float32'))).toEqual([1.5, Infinity, -0.0999755859375]);
    expect(values(await cast(new Tensor('bool', [true, false]), 'float32'))).toEqual([1, 0]);
  });
  it('converts to and from strings', async () => {
    expect(values(await cast(new Tensor('float32', [0.1, NaN, -Infinity, 3]), 'string'))).toEqual(['0.1', 'NaN', '-INF', '3']);
    const parsed = await cast(new Tensor('string', ['1.5', 'INF', '-inf', 'NaN', ' 2 ']), 'float32');
    expect(values(parsed)).toEqual([1.5, Infinity, -Infinity, NaN, 2]);
    expect(values(await cast(new Tensor('string', ['9007199254740993']), 'int64'))).toEqual([9007199254740993n]);
    expect(values(await cast(new Tensor('int64', [-(2n ** 62n)]), 'string'))).toEqual([String(-(2n ** 62n))]);
  });
  it('refuses an unparsable string and an unknown target type', async () => {
    await expect(cast(new Tensor('string', ['abc']), 'float32')).rejects.toBeInstanceOf(SwitchyardError);
    await expect(runKernel(castKernel, [new Tensor('float32', [1])], { attributes: { to: 99 } })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
  it('handles empty tensors', async () => {
    const out = await cast(new Tensor('float32', [], [0, 2]), 'int64');
    expect(out.dims).toEqual([0, 2]);
  });
});

describe('CastLike', () => {
  it('casts to the type of the second input', async () => {
    const [out] = await runKernel(castLikeKernel, [new Tensor('float64', [2.9]), new Tensor('int8', [0])]);
    expect(out).toBeInstanceOf(Tensor);
    expect((out as Tensor).type).toBe('int8');
    expect(values(out as Tensor)).toEqual([2]);
  });
});
