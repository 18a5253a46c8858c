import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { indexReader } from './indices.js';

describe('indexReader', () => {
  it('reads int64 halves as Number(bigint) would, int32 as is', () => {
    const values = [0n, 1n, -1n, 4095n, -4096n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 32n + 5n, -(2n ** 40n) + 3n, 2n ** 52n + 1n, -(2n ** 53n), 2n ** 62n + 12345n, -(2n ** 63n)];
    const t = new Tensor('int64', BigInt64Array.from(values), [values.length]);
    const read = indexReader(t);
    values.forEach((v, i) => expect(read(i), String(v)).toBe(Number(v)));
    // A view that does not start at its buffer's beginning.
    const offset = new BigInt64Array(BigInt64Array.from([7n, -3n, 9n]).buffer, 8, 2);
    const fromView = indexReader(new Tensor('int64', offset, [2]));
    expect([fromView(0), fromView(1)]).toEqual([-3, 9]);
    const i32 = indexReader(new Tensor('int32', Int32Array.of(-5, 2 ** 31 - 1), [2]));
    expect([i32(0), i32(1)]).toEqual([-5, 2 ** 31 - 1]);
  });
});
