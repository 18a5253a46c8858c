/**
 * ONNX Clip. Before opset 11 the bounds are float attributes; from 11 they are optional scalar
 * inputs of the data's type. NaN passes through unchanged.
 */
import { SwitchyardError, defineKernel, type KernelRunContext, type Tensor } from '@switchyard/core';
import { FLOATS, NUMERIC } from '../math/dtypes.js';
import { computeUnary, type ElementwiseSpec } from '../math/elementwise.js';
import { toNumbers } from '../math/numeric.js';

const clamp = 'x < lo ? lo : x > hi ? hi : x';

function spec(types: ElementwiseSpec['types']): ElementwiseSpec {
  return { opType: 'Clip', types, float: clamp, big: 'x < blo ? blo : x > bhi ? bhi : x', params: ['lo', 'hi', 'blo', 'bhi'] };
}

/** Bound as a number, and as a BigInt for the int64 path (exact for int64 bounds of any size). */
function bound(t: Tensor | undefined, fallback: number, name: string, type: string): [number, bigint] {
  if (!t) return [fallback, fallback > 0 ? 2n ** 64n : -(2n ** 64n)];
  if (t.size !== 1) throw new SwitchyardError('INVALID_SHAPE', `Clip: '${name}' must be a scalar, got [${t.dims.join(', ')}]`);
  if (t.type !== type) throw new SwitchyardError('INVALID_ARGUMENT', `Clip: '${name}' is ${t.type} but the input is ${type}`);
  const d = t.data;
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) return [Number(d[0]), d[0]];
  return [toNumbers(t)[0], 0n];
}

function run(ctx: KernelRunContext, s: ElementwiseSpec, lo: number, hi: number, blo: bigint, bhi: bigint) {
  const x = ctx.input(0);
  // Clip is min(max(x, lo), hi): with lo > hi every (non-NaN) value becomes hi.
  if (lo > hi) lo = hi;
  if (blo > bhi) blo = bhi;
  const out = ctx.output(0, x.type, x.dims);
  computeUnary(s, x, out, [lo, hi, blo, bhi]);
  return [out];
}

const legacySpec = spec(FLOATS);
export const clipAttributeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Clip',
  sinceVersion: 1,
  endVersion: 10,
  typeConstraints: { T: FLOATS },
  create: ({ attrs }) => {
    const lo = attrs.float('min', -Infinity);
    const hi = attrs.float('max', Infinity);
    return { run: (ctx) => run(ctx, legacySpec, lo, hi, 0n, 0n) };
  },
});

const inputSpec = spec(NUMERIC);
export const clipKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Clip',
  sinceVersion: 11,
  typeConstraints: { T: NUMERIC },
  create: () => ({
    run(ctx) {
      const type = ctx.input(0).type;
      const [lo, blo] = bound(ctx.optionalInput(1), -Infinity, 'min', type);
      const [hi, bhi] = bound(ctx.optionalInput(2), Infinity, 'max', type);
      return run(ctx, inputSpec, lo, hi, blo, bhi);
    },
  }),
});
