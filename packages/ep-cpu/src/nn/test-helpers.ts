/** Helpers for nn kernel tests only: seeded data and a closeness check. Not exported by the package. */
import { expect } from 'vitest';
import { Tensor, type RuntimeValue } from '@switchyard/core';

/** Deterministic pseudo-random floats in [-1, 1) (mulberry32). */
export function seeded(n: number, seed = 1): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

export function f32(dims: number[], seed = 1): Tensor<'float32'> {
  return new Tensor('float32', seeded(dims.reduce((a, b) => a * b, 1), seed), dims);
}

export function asTensor(v: RuntimeValue | undefined): Tensor {
  if (!(v instanceof Tensor)) throw new Error('expected a tensor');
  return v;
}

export function expectClose(actual: RuntimeValue | undefined, dims: readonly number[], expected: ArrayLike<number>, tol = 1e-4): void {
  const t = asTensor(actual);
  expect([...t.dims]).toEqual([...dims]);
  const a = t.data as ArrayLike<number>;
  expect(a.length).toBe(expected.length);
  for (let i = 0; i < a.length; i++) {
    const e = expected[i];
    if (Number.isNaN(e)) expect(Number.isNaN(a[i])).toBe(true);
    else if (Math.abs(a[i] - e) > tol * (1 + Math.abs(e))) throw new Error(`element ${i}: got ${a[i]}, expected ${e}`);
  }
}
