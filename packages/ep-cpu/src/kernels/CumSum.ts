/**
 * ONNX CumSum along the axis given by input 1 (a scalar), with `exclusive` (sum of the elements
 * before, not including, each one) and `reverse` (sum from the end).
 */
import { NUMERIC } from '../math/dtypes.js';
import { allSafeIntegers, int64ToNumbers, numbersToInt64, toNumbers, writeNumbers, type NumberArray } from '../math/numeric.js';
import { defineScanKernel, scan } from '../math/cumulative.js';

const addNumbers = (a: number, b: number) => a + b;
const addBig = (a: bigint, b: bigint) => a + b;

export const cumSumKernel = defineScanKernel('CumSum', 11, NUMERIC, (x, out, shape, exclusive, reverse) => {
  if (x.type === 'int64' || x.type === 'uint64') {
    // Exact in doubles when every partial sum is a safe integer (the common case), else in BigInt.
    const exact = int64ToNumbers(x.data as BigInt64Array);
    if (exact) {
      const tmp = new Float64Array(x.size);
      scan(exact, tmp, 0, addNumbers, ...shape, exclusive, reverse);
      if (allSafeIntegers(tmp)) {
        numbersToInt64(tmp, out.data as BigInt64Array);
        return;
      }
    }
    scan<bigint>(x.data as BigInt64Array, out.data as BigInt64Array, 0n, addBig, ...shape, exclusive, reverse);
  } else if (x.type === 'float32' || x.type === 'float64') {
    scan(x.data as NumberArray, out.data as NumberArray, 0, addNumbers, ...shape, exclusive, reverse);
  } else {
    // Half floats and small integers accumulate in doubles, then narrow (or wrap) once.
    const tmp = new Float64Array(x.size);
    scan(toNumbers(x), tmp, 0, addNumbers, ...shape, exclusive, reverse);
    writeNumbers(out, tmp);
  }
});
