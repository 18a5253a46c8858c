/** Tolerance comparison of run results with expected values, as ONNX's backend tests compare them. */
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import { bfloat16BitsToFloat32, float16BitsToFloat32 } from '../tensor/float16.js';
import { isSmallFloatType } from '../tensor/data-type.js';
import { smallFloatTable } from '../tensor/small-floats.js';

export interface Tolerance {
  /** Relative tolerance (ONNX default 1e-3). */
  rtol: number;
  /** Absolute tolerance (ONNX default 1e-7). */
  atol: number;
}

export const ONNX_TOLERANCE: Tolerance = { rtol: 1e-3, atol: 1e-7 };

function asNumbers(t: Tensor): ArrayLike<number> | undefined {
  const d = t.data;
  if (t.type === 'float16') return Array.from(d as Uint16Array, float16BitsToFloat32);
  if (t.type === 'bfloat16') return Array.from(d as Uint16Array, bfloat16BitsToFloat32);
  if (isSmallFloatType(t.type)) {
    const table = smallFloatTable(t.type);
    return Array.from(d as Uint8Array, (c) => table[c]);
  }
  if (t.type === 'string' || t.type === 'int64' || t.type === 'uint64') return undefined;
  return d as ArrayLike<number>;
}

/**
 * Returns undefined when `actual` matches `expected`, else a short description of the first mismatch.
 * With `checkValues` false only the dtype and shape are compared (for outputs that are random draws).
 */
export function compareTensors(actual: Tensor, expected: Tensor, tol: Tolerance = ONNX_TOLERANCE, checkValues = true): string | undefined {
  if (actual.type !== expected.type) return `dtype ${actual.type}, expected ${expected.type}`;
  if (actual.dims.length !== expected.dims.length || actual.dims.some((d, i) => d !== expected.dims[i])) {
    return `shape [${actual.dims.join(',')}], expected [${expected.dims.join(',')}]`;
  }
  if (!checkValues) return undefined;
  const a = actual.data;
  const e = expected.data;
  // Small floats compare by value, so NaN codes of either sign (and ±0) match as they do in numpy.
  const isFloat = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128'].includes(actual.type) || isSmallFloatType(actual.type);
  if (!isFloat) {
    for (let i = 0; i < e.length; i++) {
      if (a[i] !== e[i]) return `element ${i}: ${String(a[i])}, expected ${String(e[i])}`;
    }
    return undefined;
  }
  const an = asNumbers(actual)!;
  const en = asNumbers(expected)!;
  let worst = -1;
  let worstExcess = 0;
  for (let i = 0; i < en.length; i++) {
    const x = an[i];
    const y = en[i];
    if (Number.isNaN(y)) {
      if (!Number.isNaN(x)) return `element ${i}: ${x}, expected NaN`;
      continue;
    }
    if (x === y) continue; // covers matching infinities
    const excess = Math.abs(x - y) - (tol.atol + tol.rtol * Math.abs(y));
    if (!(excess <= 0) && (worst < 0 || excess > worstExcess)) {
      worst = i;
      worstExcess = excess;
    }
  }
  if (worst >= 0) return `element ${worst}: ${an[worst]}, expected ${en[worst]} (beyond rtol ${tol.rtol}, atol ${tol.atol})`;
  return undefined;
}

/** Compares any runtime value: tensors, sequences, empty optionals (`checkValues` as in compareTensors). */
export function compareValues(actual: RuntimeValue | undefined, expected: RuntimeValue, tol: Tolerance = ONNX_TOLERANCE, checkValues = true): string | undefined {
  if (expected === null) return actual === null ? undefined : 'expected an empty optional';
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return 'expected a sequence';
    if (actual.length !== expected.length) return `sequence of ${actual.length}, expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const r = compareTensors(actual[i], expected[i], tol, checkValues);
      if (r) return `sequence element ${i}: ${r}`;
    }
    return undefined;
  }
  if (!(actual instanceof Tensor)) return `expected a tensor, got ${actual === null ? 'an empty optional' : actual === undefined ? 'nothing' : 'a sequence'}`;
  return compareTensors(actual, expected, tol, checkValues);
}
