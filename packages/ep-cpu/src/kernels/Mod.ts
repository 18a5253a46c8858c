import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** fmod=1: C's fmod, the result takes the dividend's sign (JS `%` is exactly that). */
const truncatedMod = binaryKernel({ opType: 'Mod', types: NUMERIC, float: 'x % y', big: 'x % y' });
/** fmod=0: the result takes the divisor's sign, as Python's `%`. */
const flooredMod = binaryKernel({ opType: 'Mod', types: NUMERIC, float: 'floorMod(x, y)', big: 'floorModBig(x, y)' });

/** ONNX Mod. Integer modulus by zero gives 0 for ≤32-bit types and an error for int64. */
export const modKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Mod',
  sinceVersion: 10,
  typeConstraints: { T: NUMERIC },
  create: (init) => (init.attrs.int('fmod', 0) === 1 ? truncatedMod(init) : flooredMod(init)),
});
