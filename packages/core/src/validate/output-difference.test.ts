import { describe, expect, it } from 'vitest';
import { Tensor } from '../tensor/tensor.js';
import { float32ToFloat16Bits } from '../tensor/float16.js';
import { tensorDifference, valueDifferences } from './output-difference.js';
import { toleranceFor } from './tolerance.js';
import { randomFeeds } from './random-feeds.js';

const f32 = (data: number[], dims = [data.length]) => new Tensor('float32', Float32Array.from(data), dims);

describe('tensorDifference', () => {
  it('reports max abs, max rel, the worst element by its share of the tolerance, and the mismatch count', () => {
    // |diff| / (1e-4 + 1e-3·|ref|): element 1 → 0.001/0.0011 ≈ 0.9 (passes); element 3 → 0.01/0.0101 < 1 (passes);
    // element 4 → 0.002/0.0002 = 10 (fails, the worst, though its abs diff is smaller than element 3's).
    const ref = f32([0, 1, 2, 10, 0.1, 5], [2, 3]);
    const act = f32([0, 1.001, 2, 10.01, 0.102, 5]);
    const d = tensorDifference('y', new Tensor('float32', act.data, [2, 3]), ref);
    expect(d.precision).toBe('fp32');
    expect(d.maxAbs).toBeCloseTo(0.01, 5);
    expect(d.maxRel).toBeCloseTo(0.02, 4);
    expect(d.worst).toMatchObject({ index: 4, coords: [1, 1] });
    expect(d.worst!.reference as number).toBeCloseTo(0.1, 6);
    expect(d.mismatches).toBe(1);
    expect(d.passed).toBe(false);
  });

  it('passes equal tensors, NaN matching NaN, and fails a NaN against a number', () => {
    const same = tensorDifference('y', f32([1, NaN, Infinity]), f32([1, NaN, Infinity]));
    expect(same).toMatchObject({ passed: true, maxAbs: 0 });
    expect(same.worst).toBeUndefined();
    const d = tensorDifference('y', f32([1, NaN]), f32([1, 2]));
    expect(d).toMatchObject({ passed: false, maxAbs: Infinity, mismatches: 1, worst: { index: 1 } });
  });

  it('a type or shape difference is a failure with the reason, not an element comparison', () => {
    expect(tensorDifference('y', f32([1, 2], [1, 2]), f32([1, 2], [2, 1])).problem).toMatch(/shape \[1, 2\], reference \[2, 1\]/);
    expect(tensorDifference('y', new Tensor('int32', Int32Array.from([1]), [1]), f32([1])).problem).toMatch(/type int32/);
  });

  it('tolerances follow the precision: fp16 outputs and an fp16 compute mode allow what fp32 does not', () => {
    const ref = f32([1, 2, 3]);
    const act = f32([1.004, 2, 3]);
    expect(tensorDifference('y', act, ref).passed).toBe(false);
    expect(tensorDifference('y', act, ref, 'fp16').passed).toBe(true);
    const h = (v: number[]) => new Tensor('float16', Uint16Array.from(v, float32ToFloat16Bits), [v.length]);
    expect(tensorDifference('y', h([1.004, 2]), h([1, 2]))).toMatchObject({ precision: 'fp16', passed: true });
    expect(tensorDifference('y', h([1.1, 2]), h([1, 2])).passed).toBe(false);
    // A lower compute precision never tightens: fp64 named for a float32 output keeps fp32's tolerance.
    expect(toleranceFor('float32', 'fp64').precision).toBe('fp32');
  });

  it('integers are exact except int8, which may differ by one step', () => {
    const i32 = (v: number[]) => new Tensor('int32', Int32Array.from(v), [v.length]);
    expect(tensorDifference('y', i32([1, 3]), i32([1, 2])).passed).toBe(false);
    const i8 = (v: number[]) => new Tensor('int8', Int8Array.from(v), [v.length]);
    expect(tensorDifference('y', i8([1, 3]), i8([1, 2]))).toMatchObject({ precision: 'int8', passed: true, maxAbs: 1 });
    expect(tensorDifference('y', i8([1, 4]), i8([1, 2])).passed).toBe(false);
    const i64 = (v: bigint[]) => new Tensor('int64', BigInt64Array.from(v), [v.length]);
    expect(tensorDifference('y', i64([5n]), i64([5n])).passed).toBe(true);
  });

  it('a caller tolerance replaces the float one; sequences compare element by element', () => {
    const loose = tensorDifference('y', f32([1.5]), f32([1]), undefined, { atol: 1 });
    expect(loose.passed).toBe(true);
    expect(loose.tolerance).toEqual({ atol: 1, rtol: 1e-3 });
    const diffs = valueDifferences('s', [f32([1]), f32([2])], [f32([1]), f32([3])]);
    expect(diffs.map((d) => [d.name, d.passed])).toEqual([['s[0]', true], ['s[1]', false]]);
    expect(valueDifferences('s', [f32([1])], [f32([1]), f32([3])])[0].problem).toMatch(/sequence of 1/);
  });
});

describe('randomFeeds', () => {
  it('is reproducible per seed, keeps given feeds, and sizes a symbolic leading dim by batch', () => {
    const inputs = [{ name: 'x', isTensor: true, type: 'float32', shape: ['N', 3] }, { name: 'ids', isTensor: true, type: 'int64', shape: [2] }];
    const a = randomFeeds(inputs, {}, 7, { batch: 4 });
    const b = randomFeeds(inputs, {}, 7, { batch: 4 });
    expect(a.x.dims).toEqual([4, 3]);
    expect(a.x.data).toEqual(b.x.data);
    expect(randomFeeds(inputs, {}, 8).x.data).not.toEqual(randomFeeds(inputs, {}, 7).x.data);
    const given = f32([1, 2, 3], [1, 3]);
    expect(randomFeeds(inputs, { x: given }).x).toBe(given);
    expect(() => randomFeeds(inputs, { nope: given })).toThrow(/no input 'nope'/);
  });
});
