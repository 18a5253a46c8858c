import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { concatKernel } from './Concat.js';
import { splitKernel } from './Split.js';

describe('Concat', () => {
  it('concatenates along a middle axis, with an empty input', async () => {
    const a = f32(iota(12), [2, 3, 2]);
    const b = f32(iota(4).map((v) => 100 + v), [2, 1, 2]);
    const e = f32([], [2, 0, 2]);
    const [out] = await runKernel(concatKernel, [a, e, b], { attributes: { axis: -2 } });
    expect(plain(out)).toEqual({ dims: [2, 4, 2], data: [0, 1, 2, 3, 4, 5, 100, 101, 6, 7, 8, 9, 10, 11, 102, 103] });
  });

  it('concatenates strings and defaults axis to 1 at opset 1', async () => {
    const a = new Tensor('string', ['a', 'b'], [2, 1]);
    const b = new Tensor('string', ['c', 'd'], [2, 1]);
    const [out] = await runKernel(concatKernel, [a, b], { opset: 1 });
    expect(plain(out)).toEqual({ dims: [2, 2], data: ['a', 'c', 'b', 'd'] });
  });

  it('rejects mismatched dims', async () => {
    await expect(runKernel(concatKernel, [f32(iota(4), [2, 2]), f32(iota(3), [3, 1])], { attributes: { axis: 0 } })).rejects.toMatchObject({
      code: 'INVALID_SHAPE',
    });
  });
});

describe('Split', () => {
  it('splits equally by output count and by sizes (input and attribute forms)', async () => {
    const x = f32(iota(12), [2, 6]);
    const parts = await runKernel(splitKernel, [x], { attributes: { axis: 1 }, outputs: 3 });
    expect(parts.map((p) => plain(p).data)).toEqual([[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]]);
    const sized = await runKernel(splitKernel, [x, i64([1, 5])], { attributes: { axis: -1 }, outputs: 2 });
    expect(sized.map((p) => plain(p).dims)).toEqual([[2, 1], [2, 5]]);
    const attr = await runKernel(splitKernel, [x], { attributes: { axis: 1, split: [4, 2] }, outputs: 2, opset: 11 });
    expect(plain(attr[1]).data).toEqual([4, 5, 10, 11]);
  });

  it('allows zero-size parts and rejects sizes that do not add up', async () => {
    const zero = await runKernel(splitKernel, [f32([], [0]), i64([0, 0, 0])], { outputs: 3 });
    expect(zero.map((p) => plain(p).dims)).toEqual([[0], [0], [0]]);
    await expect(runKernel(splitKernel, [f32(iota(5), [5])], { outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
    await expect(runKernel(splitKernel, [f32(iota(5), [5]), i64([2, 2])], { outputs: 2 })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});
