/** Small helpers for the tensor family's tests (not shipped: only test files import this). */
import { Tensor, type RuntimeValue } from '@switchyard/core';

export function f32(data: number[], dims: number[]): Tensor<'float32'> {
  return new Tensor('float32', Float32Array.from(data), dims);
}

export function i64(data: number[], dims: number[] = [data.length]): Tensor<'int64'> {
  return new Tensor('int64', BigInt64Array.from(data.map((v) => BigInt(v))), dims);
}

export function iota(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** A tensor result's dims and values as plain numbers / strings. */
export function plain(v: RuntimeValue | undefined): { dims: number[]; data: Array<number | string> } {
  if (!(v instanceof Tensor)) throw new Error('expected a tensor result');
  return { dims: [...v.dims], data: Array.from(v.data as ArrayLike<number | bigint | string>, (x) => (typeof x === 'bigint' ? Number(x) : x)) };
}

/** Deterministic pseudo-random integers for property tests. */
export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}
