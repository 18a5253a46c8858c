/** The scan shared by CumSum and CumProd: one running accumulation along an axis, optionally exclusive or reversed. */
import { SwitchyardError, defineKernel, type DataType, type KernelDef, type Tensor } from '@switchyard/core';
import { toNumbers } from './numeric.js';

/** [outer, len, inner]: the scanned axis in the middle. */
export type ScanShape = readonly [outer: number, len: number, inner: number];

/**
 * A CumSum-like kernel: reads `exclusive` / `reverse`, checks X's type, reads the axis input, and leaves
 * the accumulation of X into Y (same dims and type) to `scanTensor`.
 */
export function defineScanKernel(
  opType: string,
  sinceVersion: number,
  types: readonly DataType[],
  scanTensor: (x: Tensor, out: Tensor, shape: ScanShape, exclusive: boolean, reverse: boolean) => void,
): KernelDef {
  return defineKernel({
    ep: 'cpu',
    domain: '',
    opType,
    sinceVersion,
    typeConstraints: { T: types, T2: ['int32', 'int64'] },
    create: ({ attrs }) => {
      const exclusive = attrs.int('exclusive', 0) !== 0;
      const reverse = attrs.int('reverse', 0) !== 0;
      return {
        run(ctx) {
          const x = ctx.input(0);
          if (!types.includes(x.type)) throw new SwitchyardError('UNSUPPORTED', `${opType}: element type '${x.type}' is not supported`);
          const axis = readScanAxis(opType, ctx.input(1), x.dims.length);
          const out = ctx.output(0, x.type, x.dims);
          const outer = x.dims.slice(0, axis).reduce((p, d) => p * d, 1);
          const inner = x.dims.slice(axis + 1).reduce((p, d) => p * d, 1);
          scanTensor(x, out, [outer, x.dims[axis], inner], exclusive, reverse);
          return [out];
        },
      };
    },
  });
}

/** Scans `src` into `dst` (same layout), viewing it as [outer, len, inner]. Works on numbers or BigInts; `identity` starts each run (0 for sums, 1 for products). */
export function scan<T extends number | bigint>(
  src: ArrayLike<T>,
  dst: { [i: number]: T },
  identity: T,
  combine: (a: T, b: T) => T,
  outer: number,
  len: number,
  inner: number,
  exclusive: boolean,
  reverse: boolean,
): void {
  for (let a = 0; a < outer; a++) {
    for (let i = 0; i < inner; i++) {
      const start = a * len * inner + i;
      let acc = identity;
      for (let s = 0; s < len; s++) {
        const k = start + (reverse ? len - 1 - s : s) * inner;
        if (exclusive) {
          dst[k] = acc;
          acc = combine(acc, src[k]);
        } else {
          acc = combine(acc, src[k]);
          dst[k] = acc;
        }
      }
    }
  }
}

export function readScanAxis(op: string, t: Tensor, rank: number): number {
  if (t.size !== 1 || (t.type !== 'int32' && t.type !== 'int64')) {
    throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axis must be an int32/int64 scalar, got ${t.type} [${t.dims.join(', ')}]`);
  }
  const raw = toNumbers(t)[0];
  const axis = raw < 0 ? raw + rank : raw;
  if (axis < 0 || axis >= rank) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axis ${raw} is out of range for rank ${rank}`);
  return axis;
}
