import { describe, expect, it } from 'vitest';
import { broadcastDim, broadcastShapes, dimProduct, mergeTypes } from './dims.js';

describe('broadcastDim', () => {
  it.each([
    [[1, 'N'], 'N'],
    [['N', 'N'], 'N'],
    [['N', 'M'], undefined],
    [['N', 5], 5],
    [[undefined, 5], 5],
    [[undefined, 'N'], 'N'],
    [[undefined, 1], undefined],
    [[1, 1], 1],
    [[0, 1], 0],
    [[3, 4], undefined],
  ] as const)('%j → %j', (dims, expected) => {
    expect(broadcastDim(dims)).toBe(expected);
  });
});

describe('broadcastShapes', () => {
  it('aligns from the right and pads with ones', () => {
    expect(broadcastShapes([['N', 1, 4], [3, 1]])).toEqual(['N', 3, 4]);
    expect(broadcastShapes([[2, 3], []])).toEqual([2, 3]);
  });

  it('keeps an unknown leading dim unknown rather than treating it as 1', () => {
    expect(broadcastShapes([[undefined, 3], [3]])).toEqual([undefined, 3]);
  });

  it('is undefined when any rank is unknown', () => {
    expect(broadcastShapes([[2, 3], undefined])).toBeUndefined();
  });
});

describe('dimProduct', () => {
  it('multiplies numbers, keeps a lone symbol, gives up on symbol × number', () => {
    expect(dimProduct([2, 3, 4])).toBe(24);
    expect(dimProduct([1, 'N', 1])).toBe('N');
    expect(dimProduct(['N', 3])).toBeUndefined();
    expect(dimProduct([])).toBe(1);
  });
});

describe('mergeTypes', () => {
  it('takes the more specific dim from either side', () => {
    const merged = mergeTypes(
      { kind: 'tensor', elemType: 'float32', shape: ['batch', undefined, 3] },
      { kind: 'tensor', elemType: 'float32', shape: [8, 16, undefined] },
    );
    expect(merged).toEqual({ kind: 'tensor', elemType: 'float32', shape: [8, 16, 3] });
  });

  it('keeps the declaration on a conflict and reports it', () => {
    const conflicts: string[] = [];
    const merged = mergeTypes(
      { kind: 'tensor', elemType: 'float32', shape: [2, 3] },
      { kind: 'tensor', elemType: 'float32', shape: [2, 4] },
      (m) => conflicts.push(m),
    );
    expect(merged).toEqual({ kind: 'tensor', elemType: 'float32', shape: [2, 3] });
    expect(conflicts).toHaveLength(1);
  });

  it('fills a declaration without shape from inference', () => {
    expect(mergeTypes({ kind: 'tensor', elemType: 'int64' }, { kind: 'tensor', elemType: 'int64', shape: [4] })).toEqual({
      kind: 'tensor',
      elemType: 'int64',
      shape: [4],
    });
  });
});
