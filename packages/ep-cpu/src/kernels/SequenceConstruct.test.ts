import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { f32, i64, iota, plain } from '../tensor-ops/test-util.js';
import { sequenceConstructKernel } from './SequenceConstruct.js';
import { sequenceEmptyKernel } from './SequenceEmpty.js';
import { sequenceAtKernel } from './SequenceAt.js';
import { sequenceInsertKernel } from './SequenceInsert.js';
import { sequenceEraseKernel } from './SequenceErase.js';
import { sequenceLengthKernel } from './SequenceLength.js';
import { splitToSequenceKernel } from './SplitToSequence.js';
import { concatFromSequenceKernel } from './ConcatFromSequence.js';
import { optionalKernel } from './Optional.js';
import { optionalHasElementKernel } from './OptionalHasElement.js';
import { optionalGetElementKernel } from './OptionalGetElement.js';
import { identityKernel } from './Identity.js';

const seqOf = (v: unknown): Tensor[] => {
  if (!Array.isArray(v)) throw new Error('expected a sequence');
  return v as Tensor[];
};

describe('sequence ops', () => {
  it('construct, insert, at, erase, length', async () => {
    const [a, b, c] = [f32([1], [1]), f32([2, 2], [2]), f32([3], [1])];
    const [seq] = await runKernel(sequenceConstructKernel, [a, b]);
    expect(seqOf(seq).map((t) => plain(t).data)).toEqual([[1], [2, 2]]);
    // Elements are copies, not the inputs themselves.
    expect(seqOf(seq)[0]).not.toBe(a);
    const [ins] = await runKernel(sequenceInsertKernel, [seq, c, i64([0], [])]);
    expect(seqOf(ins).map((t) => plain(t).data[0])).toEqual([3, 1, 2]);
    const [back] = await runKernel(sequenceInsertKernel, [seq, c]);
    expect(seqOf(back).map((t) => plain(t).data[0])).toEqual([1, 2, 3]);
    expect(plain((await runKernel(sequenceAtKernel, [ins, i64([-1], [])]))[0]).data).toEqual([2, 2]);
    const [er] = await runKernel(sequenceEraseKernel, [ins, i64([1], [])]);
    expect(seqOf(er).map((t) => plain(t).data[0])).toEqual([3, 2]);
    const [lastGone] = await runKernel(sequenceEraseKernel, [ins]);
    expect(seqOf(lastGone)).toHaveLength(2);
    expect(plain((await runKernel(sequenceLengthKernel, [ins]))[0])).toEqual({ dims: [], data: [3] });
    expect(await runKernel(sequenceEmptyKernel, [])).toEqual([[]]);
  });

  it('rejects out-of-range positions', async () => {
    const [seq] = await runKernel(sequenceConstructKernel, [f32([1], [1])]);
    await expect(runKernel(sequenceAtKernel, [seq, i64([1], [])])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(sequenceInsertKernel, [seq, f32([1], [1]), i64([3], [])])).rejects.toMatchObject({ code: 'RUNTIME' });
    await expect(runKernel(sequenceEraseKernel, [[]])).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('SplitToSequence: default, scalar chunk, sizes, keepdims 0', async () => {
    const x = f32(iota(10), [5, 2]);
    const [ones] = await runKernel(splitToSequenceKernel, [x], { attributes: { keepdims: 0 } });
    expect(seqOf(ones).map((t) => t.dims)).toEqual(Array(5).fill([2]));
    const [chunks] = await runKernel(splitToSequenceKernel, [x, i64([2], [])]);
    expect(seqOf(chunks).map((t) => t.dims[0])).toEqual([2, 2, 1]);
    const [sized] = await runKernel(splitToSequenceKernel, [x, i64([1, 1], [2])], { attributes: { axis: 1 } });
    expect(seqOf(sized).map((t) => plain(t).data)).toEqual([[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]);
  });

  it('ConcatFromSequence concatenates and stacks', async () => {
    const seq = [f32([1, 2], [2]), f32([3, 4], [2])];
    expect(plain((await runKernel(concatFromSequenceKernel, [seq], { attributes: { axis: 0 } }))[0])).toEqual({ dims: [4], data: [1, 2, 3, 4] });
    expect(plain((await runKernel(concatFromSequenceKernel, [seq], { attributes: { axis: -1, new_axis: 1 } }))[0])).toEqual({
      dims: [2, 2],
      data: [1, 3, 2, 4],
    });
  });
});

describe('optional ops and Identity', () => {
  it('wraps, tests and unwraps', async () => {
    const x = f32([1, 2], [2]);
    const [some] = await runKernel(optionalKernel, [x]);
    const [none] = await runKernel(optionalKernel, [undefined]);
    expect(none).toBeNull();
    expect(plain((await runKernel(optionalHasElementKernel, [some]))[0]).data).toEqual([1]);
    expect(plain((await runKernel(optionalHasElementKernel, [null]))[0]).data).toEqual([0]);
    expect(plain((await runKernel(optionalGetElementKernel, [some]))[0]).data).toEqual([1, 2]);
    await expect(runKernel(optionalGetElementKernel, [null])).rejects.toMatchObject({ code: 'RUNTIME' });
  });

  it('Identity copies tensors and passes sequences and empty optionals', async () => {
    const x = f32([1, 2], [2]);
    const [y] = await runKernel(identityKernel, [x]);
    expect(y).not.toBe(x);
    expect(plain(y)).toEqual(plain(x));
    expect(seqOf((await runKernel(identityKernel, [[x]]))[0])).toHaveLength(1);
    expect((await runKernel(identityKernel, [null]))[0]).toBeNull();
  });
});
