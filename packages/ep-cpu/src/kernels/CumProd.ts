/**
 * ONNX CumProd (opset 26): cumulative product along the axis given by input 1 (a scalar), with
 * `exclusive` (product of the elements before each one; the first is 1) and `reverse`.
 * Integers wrap as fixed-width products do: 32-bit through Math.imul, 64-bit through BigInt.
 */
import { defineScanKernel, scan } from '../math/cumulative.js';
import { toNumbers, writeNumbers, type NumberArray } from '../math/numeric.js';

const CUMPROD_TYPES = ['uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'] as const;

const mulNumbers = (a: number, b: number) => a * b;
const mulInt32 = (a: number, b: number) => Math.imul(a, b);
const mulUint32 = (a: number, b: number) => Math.imul(a, b) >>> 0;
const mulInt64 = (a: bigint, b: bigint) => BigInt.asIntN(64, a * b);
const mulUint64 = (a: bigint, b: bigint) => BigInt.asUintN(64, a * b);

export const cumProdKernel = defineScanKernel('CumProd', 26, CUMPROD_TYPES, (x, out, shape, exclusive, reverse) => {
  if (x.type === 'int64') {
    scan<bigint>(x.data as BigInt64Array, out.data as BigInt64Array, 1n, mulInt64, ...shape, exclusive, reverse);
  } else if (x.type === 'uint64') {
    scan<bigint>(x.data as BigUint64Array, out.data as BigUint64Array, 1n, mulUint64, ...shape, exclusive, reverse);
  } else if (x.type === 'int32') {
    scan(x.data as Int32Array, out.data as Int32Array, 1, mulInt32, ...shape, exclusive, reverse);
  } else if (x.type === 'uint32') {
    scan(x.data as Uint32Array, out.data as Uint32Array, 1, mulUint32, ...shape, exclusive, reverse);
  } else if (x.type === 'float32' || x.type === 'float64') {
    scan(x.data as NumberArray, out.data as NumberArray, 1, mulNumbers, ...shape, exclusive, reverse);
  } else {
    // Half floats accumulate in doubles, then narrow once.
    const tmp = new Float64Array(x.size);
    scan(toNumbers(x), tmp, 1, mulNumbers, ...shape, exclusive, reverse);
    writeNumbers(out, tmp);
  }
});
