import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, plain } from '../tensor-ops/test-util.js';
import { rangeKernel } from './Range.js';
import { constantOfShapeKernel } from './ConstantOfShape.js';
import { constantKernel } from './Constant.js';
import { shapeKernel } from './Shape.js';
import { sizeKernel } from './Size.js';
import { eyeLikeKernel } from './EyeLike.js';

const scalar = (type: 'int32' | 'float32', v: number) => new Tensor(type, [v], []);

describe('Range', () => {
  it('counts up and down, in floats, int32 and int64', async () => {
    expect(plain((await runKernel(rangeKernel, [scalar('float32', 1), scalar('float32', 2), scalar('float32', 0.25)]))[0]).data).toEqual([1, 1.25, 1.5, 1.75]);
    expect(plain((await runKernel(rangeKernel, [scalar('int32', 10), scalar('int32', 4), scalar('int32', -3)]))[0]).data).toEqual([10, 7]);
    const s = (v: number) => i64([v], []);
    expect(plain((await runKernel(rangeKernel, [s(0), s(-5), s(-2)]))[0]).data).toEqual([0, -2, -4]);
    expect(plain((await runKernel(rangeKernel, [s(3), s(1), s(1)]))[0]).dims).toEqual([0]);
  });

  it('rejects delta 0 and absurd counts before allocating', async () => {
    await expect(runKernel(rangeKernel, [scalar('int32', 0), scalar('int32', 5), scalar('int32', 0)])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(rangeKernel, [scalar('float32', 0), scalar('float32', 1e12), scalar('float32', 1)])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('ConstantOfShape / Constant / Shape / Size / EyeLike', () => {
  it('ConstantOfShape fills with the value, float32 zero by default, and guards sizes', async () => {
    expect(plain((await runKernel(constantOfShapeKernel, [i64([2, 2])]))[0])).toEqual({ dims: [2, 2], data: [0, 0, 0, 0] });
    const [o] = await runKernel(constantOfShapeKernel, [i64([3])], { attributes: { value: i64([7], [1]) } });
    expect(plain(o)).toEqual({ dims: [3], data: [7, 7, 7] });
    expect((o as Tensor).type).toBe('int64');
    expect(plain((await runKernel(constantOfShapeKernel, [i64([0])]))[0]).dims).toEqual([0]);
    await expect(runKernel(constantOfShapeKernel, [i64([1e6, 1e6])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(constantOfShapeKernel, [i64([-1])])).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });

  it('Constant supports each value_* form', async () => {
    const run = async (attributes: Parameters<typeof runKernel>[2]) => (await runKernel(constantKernel, [], attributes))[0] as Tensor;
    expect((await run({ attributes: { value_int: 3 } })).type).toBe('int64');
    expect(plain(await run({ attributes: { value_ints: [1, 2] } }))).toEqual({ dims: [2], data: [1, 2] });
    expect(plain(await run({ attributes: { value_float: { float: 1.5 } } }))).toEqual({ dims: [], data: [1.5] });
    expect(plain(await run({ attributes: { value_floats: { floats: [0.5, 2] } } })).data).toEqual([0.5, 2]);
    expect(plain(await run({ attributes: { value_string: 'hi' } })).data).toEqual(['hi']);
    expect(plain(await run({ attributes: { value_strings: ['a', 'b'] } })).data).toEqual(['a', 'b']);
    expect(plain(await run({ attributes: { value: f32([1, 2], [2]) } })).data).toEqual([1, 2]);
    expect(constantKernel.supports!({ attributes: new Map() } as never, undefined as never)).toMatch(/no value/);
  });

  it('Shape slices with start/end; Size counts', async () => {
    const x = f32(new Array(24).fill(0), [2, 3, 4]);
    expect(plain((await runKernel(shapeKernel, [x]))[0]).data).toEqual([2, 3, 4]);
    expect(plain((await runKernel(shapeKernel, [x], { attributes: { start: -2, end: 10 } }))[0]).data).toEqual([3, 4]);
    expect(plain((await runKernel(shapeKernel, [x], { attributes: { start: 2, end: 1 } }))[0]).dims).toEqual([0]);
    expect(plain((await runKernel(sizeKernel, [x]))[0])).toEqual({ dims: [], data: [24] });
  });

  it('EyeLike with k and dtype', async () => {
    const [o] = await runKernel(eyeLikeKernel, [f32(new Array(6).fill(5), [2, 3])], { attributes: { k: 1, dtype: 7 } });
    expect((o as Tensor).type).toBe('int64');
    expect(plain(o).data).toEqual([0, 1, 0, 0, 0, 1]);
    const [n] = await runKernel(eyeLikeKernel, [f32(new Array(6).fill(5), [3, 2])], { attributes: { k: -1 } });
    expect(plain(n).data).toEqual([0, 0, 1, 0, 0, 1]);
  });
});
