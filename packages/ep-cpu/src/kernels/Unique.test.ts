/**
 * Unique against a quadratic reference written from the spec: all four outputs, sorted and first-seen
 * order, flattened and along an axis (including one-element slices, which take the scalar path), float
 * with NaN and ±0, int64 beyond 2^53, int32, bool, strings, empty input.
 */
import { describe, expect, it } from 'vitest';
import { Tensor, type DataType } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { uniqueKernel } from './Unique.js';

type V = number | bigint | string | boolean;
const same = (a: V, b: V) => a === b || (a !== a && b !== b); // eslint-disable-line no-self-compare -- NaN equals NaN
const less = (a: V, b: V) => (a !== a ? false : b !== b ? true : a < b); // eslint-disable-line no-self-compare -- NaN last

function reference(values: V[], dims: number[], axis: number | undefined, sorted: boolean) {
  const shape = axis === undefined ? [values.length] : dims;
  const ax = axis === undefined ? 0 : axis < 0 ? axis + dims.length : axis;
  const n = shape[ax];
  const outer = shape.slice(0, ax).reduce((p, q) => p * q, 1);
  const inner = shape.slice(ax + 1).reduce((p, q) => p * q, 1);
  const slices = Array.from({ length: n }, (_, i) => Array.from({ length: outer * inner }, (_, t) => values[(Math.floor(t / inner) * n + i) * inner + (t % inner)]));
  const firsts: number[] = [];
  for (let i = 0; i < n; i++) if (!firsts.some((f) => slices[f].every((v, j) => same(v, slices[i][j])))) firsts.push(i);
  if (sorted) {
    firsts.sort((a, b) => {
      for (let j = 0; j < slices[a].length; j++) {
        if (less(slices[a][j], slices[b][j])) return -1;
        if (less(slices[b][j], slices[a][j])) return 1;
      }
      return 0;
    });
  }
  const groupOf = (i: number) => firsts.findIndex((f) => slices[f].every((v, j) => same(v, slices[i][j])));
  const inverse = Array.from({ length: n }, (_, i) => groupOf(i));
  const counts = firsts.map((_, g) => inverse.filter((h) => h === g).length);
  const yDims = [...shape];
  yDims[ax] = firsts.length;
  const y: V[] = [];
  for (let o = 0; o < outer; o++) for (const f of firsts) for (let j = 0; j < inner; j++) y.push(values[(o * n + f) * inner + j]);
  return { y, yDims, indices: firsts, inverse, counts };
}

function tensorOf(type: DataType, values: V[], dims: number[]): Tensor {
  if (type === 'int64') return new Tensor('int64', BigInt64Array.from(values as bigint[]), dims);
  if (type === 'string') return new Tensor('string', values as string[], dims);
  if (type === 'bool') return new Tensor('bool', Uint8Array.from(values as number[]), dims);
  if (type === 'int32') return new Tensor('int32', Int32Array.from(values as number[]), dims);
  return new Tensor('float32', Float32Array.from(values as number[]), dims);
}

const CASES: Array<{ type: DataType; values: V[]; dims: number[]; axes: Array<number | undefined> }> = [
  { type: 'float32', values: [2, NaN, -0, 1.5, 0, 2, NaN, -3, 1.5, 0, 7, -0], dims: [3, 4], axes: [undefined, 0, 1, -1] },
  { type: 'float32', values: [3, 1, 3, 2, 1], dims: [1, 5, 1], axes: [undefined, 1] },
  { type: 'int64', values: [5n, 2n ** 60n, -4n, 5n, 2n ** 60n + 1n, -4n, 0n, 2n ** 60n], dims: [8], axes: [undefined, 0] },
  { type: 'int64', values: [9n, -1n, 9n, 3n, -1n, 9n], dims: [2, 3], axes: [undefined, 0, 1] },
  { type: 'int32', values: Array.from({ length: 60 }, (_, i) => (i * 37) % 11 - 5), dims: [60], axes: [undefined] },
  { type: 'bool', values: [1, 0, 0, 1, 1], dims: [5], axes: [undefined] },
  { type: 'string', values: ['b', 'a', 'b', 'c', 'a', 'a'], dims: [3, 2], axes: [undefined, 0, 1] },
  { type: 'float32', values: [], dims: [0], axes: [undefined, 0] },
];

describe('Unique matches a quadratic reference', () => {
  for (const { type, values, dims, axes } of CASES) {
    for (const axis of axes) {
      for (const sorted of [1, 0]) {
        it(`${type} [${dims.join(', ')}], axis ${axis ?? 'none'}, sorted=${sorted}`, async () => {
          const attributes: Record<string, number> = { sorted };
          if (axis !== undefined) attributes.axis = axis;
          const outs = await runKernel(uniqueKernel, [tensorOf(type, values, dims)], { attributes, outputs: 4 });
          const [y, indices, inverse, counts] = outs as Tensor[];
          const want = reference(values, dims, axis, sorted === 1);
          expect(y.dims).toEqual(want.yDims);
          const got = Array.from(y.data as ArrayLike<V>);
          expect(got.length).toBe(want.y.length);
          // Object.is: a group keeps the bits of its first element (−0 stays −0).
          got.forEach((v, i) => expect(Object.is(v, type === 'bool' ? Number(want.y[i]) : want.y[i]) || (v !== v && want.y[i] !== want.y[i])).toBe(true)); // eslint-disable-line no-self-compare
          expect(Array.from(indices.data as BigInt64Array, Number)).toEqual(want.indices);
          expect(Array.from(inverse.data as BigInt64Array, Number)).toEqual(want.inverse);
          expect(Array.from(counts.data as BigInt64Array, Number)).toEqual(want.counts);
        });
      }
    }
  }
});
