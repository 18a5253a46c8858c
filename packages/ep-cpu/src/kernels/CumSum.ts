/**
 * ONNX CumSum along the axis given by input 1 (a scalar), with `exclusive` (sum of the elements
 * before, not including, each one) and `reverse` (sum from the end).
 */
import { SwitchyardError, defineKernel, type Tensor } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { allSafeIntegers, int64ToNumbers, numbersToInt64, toNumbers, writeNumbers, type NumberArray } from '../math/numeric.js';

/** Scans `src` into `dst` (same layout), viewing it as [outer, len, inner]. Works on numbers or BigInts. */
function scan<T extends number | bigint>(
  src: ArrayLike<T>,
  dst: { [i: number]: T },
  zero: T,
  add: (a: T, b: T) => T,
  outer: number,
  len: number,
  inner: number,
  exclusive: boolean,
  reverse: boolean,
): void {
  for (let a = 0; a < outer; a++) {
    for (let i = 0; i < inner; i++) {
      const start = a * len * inner + i;
      let acc = zero;
      for (let s = 0; s < len; s++) {
        const k = start + (reverse ? len - 1 - s : s) * inner;
        if (exclusive) {
          dst[k] = acc;
          acc = add(acc, src[k]);
        } else {
          acc = add(acc, src[k]);
          dst[k] = acc;
        }
      }
    }
  }
}

const addNumbers = (a: number, b: number) => a + b;
const addBig = (a: bigint, b: bigint) => a + b;

function readAxis(t: Tensor, rank: number): number {
  if (t.size !== 1 || (t.type !== 'int32' && t.type !== 'int64')) {
    throw new SwitchyardError('INVALID_ARGUMENT', `CumSum: axis must be an int32/int64 scalar, got ${t.type} [${t.dims.join(', ')}]`);
  }
  const raw = toNumbers(t)[0];
  const axis = raw < 0 ? raw + rank : raw;
  if (axis < 0 || axis >= rank) throw new SwitchyardError('INVALID_ARGUMENT', `CumSum: axis ${raw} is out of range for rank ${rank}`);
  return axis;
}

export const cumSumKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'CumSum',
  sinceVersion: 11,
  typeConstraints: { T: NUMERIC, T2: ['int32', 'int64'] },
  create: ({ attrs }) => {
    const exclusive = attrs.int('exclusive', 0) !== 0;
    const reverse = attrs.int('reverse', 0) !== 0;
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (!NUMERIC.includes(x.type)) throw new SwitchyardError('UNSUPPORTED', `CumSum: element type '${x.type}' is not supported`);
        const axis = readAxis(ctx.input(1), x.dims.length);
        const out = ctx.output(0, x.type, x.dims);
        const len = x.dims[axis];
        const outer = x.dims.slice(0, axis).reduce((p, d) => p * d, 1);
        const inner = x.dims.slice(axis + 1).reduce((p, d) => p * d, 1);
        const shape = [outer, len, inner] as const;
        if (x.type === 'int64' || x.type === 'uint64') {
          const exact = int64ToNumbers(x.data as BigInt64Array);
          if (exact) {
            const tmp = new Float64Array(x.size);
            scan(exact, tmp, 0, addNumbers, ...shape, exclusive, reverse);
            if (allSafeIntegers(tmp)) {
              numbersToInt64(tmp, out.data as BigInt64Array);
              return [out];
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
        return [out];
      },
    };
  },
});
