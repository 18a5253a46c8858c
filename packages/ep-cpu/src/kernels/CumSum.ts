/**
 * ONNX CumSum along the axis given by input 1 (a scalar), with `exclusive` (sum of the elements
 * before, not including, each one) and `reverse` (sum from the end).
 */
import { SwitchyardError, defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { allSafeIntegers, int64ToNumbers, numbersToInt64, toNumbers, writeNumbers, type NumberArray } from '../math/numeric.js';
import { readScanAxis, scan } from '../math/cumulative.js';

const addNumbers = (a: number, b: number) => a + b;
const addBig = (a: bigint, b: bigint) => a + b;

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
        const axis = readScanAxis('CumSum', ctx.input(1), x.dims.length);
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
