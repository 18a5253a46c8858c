import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { broadcastIndex, broadcastPlan, broadcastShape } from './broadcast.js';

/** Reference: the input offset for each output element, computed index by index. */
function naiveIndex(from: number[], to: readonly number[]): number[] {
  const out: number[] = [];
  const size = to.reduce((a, b) => a * b, 1);
  for (let flat = 0; flat < size; flat++) {
    let rem = flat;
    const idx = to.map(() => 0);
    for (let a = to.length - 1; a >= 0; a--) {
      idx[a] = rem % to[a];
      rem = Math.floor(rem / to[a]);
    }
    let off = 0;
    const pad = to.length - from.length;
    for (let a = 0; a < from.length; a++) off = off * from[a] + (from[a] === 1 ? 0 : idx[pad + a]);
    out.push(off);
  }
  return out;
}

describe('broadcastShape', () => {
  it('aligns trailing dims and stretches ones', () => {
    expect(broadcastShape([[2, 3, 4], [4]])).toEqual([2, 3, 4]);
    expect(broadcastShape([[2, 1, 4], [3, 1]])).toEqual([2, 3, 4]);
    expect(broadcastShape([[], [5]])).toEqual([5]);
    expect(broadcastShape([[0, 3], [1, 3]])).toEqual([0, 3]);
  });
  it('rejects incompatible shapes with INVALID_SHAPE', () => {
    expect(() => broadcastShape([[2, 3], [4]])).toThrow(SwitchyardError);
    try {
      broadcastShape([[2, 3], [4]], 'Add');
    } catch (e) {
      expect((e as SwitchyardError).code).toBe('INVALID_SHAPE');
      expect((e as Error).message).toContain('Add');
    }
  });
});

describe('broadcastPlan', () => {
  const cases: Array<[number[], number[]]> = [
    [[2, 3, 4], [2, 3, 4]],
    [[2, 3, 4], [1]],
    [[2, 3, 4], [3, 1]],
    [[2, 3, 4], [1, 3, 1]],
    [[2, 1, 4], [3, 1]],
    [[4, 1], [1, 5]],
    [[2, 3, 4, 5], [1, 3, 1, 1]],
    [[3], []],
  ];
  for (const [a, b] of cases) {
    it(`matches the naive index for [${a}] ⊕ [${b}]`, () => {
      const plan = broadcastPlan([a, b]);
      expect(plan.outer * plan.inner).toBe(plan.size);
      for (const [k, shape] of [a, b].entries()) {
        const got: number[] = [];
        for (let r = 0; r < plan.outer; r++) for (let j = 0; j < plan.inner; j++) got.push(plan.offsets[k][r] + j * plan.innerStrides[k]);
        expect(got).toEqual(naiveIndex(shape, plan.dims));
      }
    });
  }
  it('collapses equal shapes into one contiguous row', () => {
    const plan = broadcastPlan([[2, 3, 4], [2, 3, 4]]);
    expect([plan.outer, plan.inner, ...plan.innerStrides]).toEqual([1, 24, 1, 1]);
  });
  it('handles a zero-sized dimension', () => {
    const plan = broadcastPlan([[0, 3], [3]]);
    expect(plan.size).toBe(0);
    expect(plan.outer).toBe(0);
  });
  it('keeps plans apart whose shapes hash alike', () => {
    // [2, 40] and [3, 9] give the same 31-multiplier hash (2·31 + 40 = 3·31 + 9): the cache must compare shapes.
    for (let round = 0; round < 2; round++) {
      expect(broadcastPlan([[2, 40], [1]]).dims).toEqual([2, 40]);
      expect(broadcastPlan([[3, 9], [1]]).dims).toEqual([3, 9]);
    }
  });
  it('returns frozen output dims, shared by later lookups', () => {
    const plan = broadcastPlan([[5, 1], [1, 6]]);
    expect(Object.isFrozen(plan.dims)).toBe(true);
    expect(broadcastPlan([[5, 1], [1, 6]])).toBe(plan);
  });
  it('broadcastIndex maps outputs to inputs and refuses shapes that do not fit', () => {
    expect([...broadcastIndex([3, 1], [3, 2])]).toEqual([0, 0, 1, 1, 2, 2]);
    expect(() => broadcastIndex([3, 2], [3, 1])).toThrow(SwitchyardError);
  });
});
