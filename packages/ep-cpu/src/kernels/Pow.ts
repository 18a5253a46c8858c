/**
 * ONNX Pow: base type T (floats, int32, int64), exponent of any numeric type T1 (from opset 12).
 * Integer bases with integer exponents use exact integer powers (BigInt past 2^53); a float exponent
 * on an integer base truncates the result, as a C cast of `pow` does.
 */
import { SwitchyardError, defineKernel, type Tensor } from '@switchyard/core';
import { broadcastPlan, broadcastShape } from '../math/broadcast.js';
import { binaryLoop, unaryLoop } from '../math/codegen.js';
import { NUMERIC } from '../math/dtypes.js';
import { allSafeIntegers, int64ToNumbers, isFloatType, narrowHalf, numbersToInt64, toNumbers, widenHalf, type NumberArray } from '../math/numeric.js';
import { intPowBig } from '../math/special.js';

const BASE_TYPES = ['float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64'] as const;

/** Exponents common enough in models (x², √x) to deserve a loop without `Math.pow`. */
const SCALAR_FAST: ReadonlyMap<number, string> = new Map([
  [1, 'x'],
  [2, 'x * x'],
  [3, 'x * x * x'],
  // Math.pow's x^0.5 (+0 for -0, +Infinity for -Infinity), which Math.sqrt alone is not.
  [0.5, 'x === -Infinity ? Infinity : Math.sqrt(x) + 0'],
  [-1, '1 / x'],
]);

function powNumbers(base: NumberArray, baseDims: readonly number[], exp: NumberArray, expDims: readonly number[], out: NumberArray, intExp: boolean, lane: string): void {
  if (exp.length === 1 && base.length === out.length) {
    const fast = SCALAR_FAST.get(exp[0]);
    if (fast && !intExp) return unaryLoop(fast, 'value', lane)(base, out, out.length, []);
  }
  const plan = broadcastPlan([baseDims, expDims], 'Pow');
  const expr = intExp ? 'intPow(x, y)' : 'Math.pow(x, y)';
  binaryLoop(expr, 'value', lane)(base, exp, out, plan.outer, plan.inner, plan.offsets[0], plan.offsets[1], plan.innerStrides[0], plan.innerStrides[1], []);
}

function bigExponents(t: Tensor): BigInt64Array | BigUint64Array {
  if (t.data instanceof BigInt64Array || t.data instanceof BigUint64Array) return t.data;
  const src = toNumbers(t);
  const out = new BigInt64Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = BigInt(src[i]);
  return out;
}

function powInt64(x: Tensor, y: Tensor, out: Tensor<'int64'>): void {
  const intExp = !isFloatType(y.type);
  const base = int64ToNumbers(x.data as BigInt64Array);
  if (base) {
    const tmp = new Float64Array(out.size);
    powNumbers(base, x.dims, toNumbers(y), y.dims, tmp, intExp, `int64^${y.type}`);
    if (allSafeIntegers(tmp)) return numbersToInt64(tmp, out.data);
  }
  if (!intExp) {
    throw new SwitchyardError('UNSUPPORTED', 'Pow: int64 base beyond 2^53 with a float exponent is not supported');
  }
  const plan = broadcastPlan([x.dims, y.dims], 'Pow');
  const b = x.data as BigInt64Array;
  const e = bigExponents(y);
  const o = out.data;
  let k = 0;
  for (let r = 0; r < plan.outer; r++) {
    for (let j = 0; j < plan.inner; j++) {
      o[k++] = intPowBig(b[plan.offsets[0][r] + j * plan.innerStrides[0]], BigInt.asIntN(64, e[plan.offsets[1][r] + j * plan.innerStrides[1]]));
    }
  }
}

export const powKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Pow',
  sinceVersion: 1,
  typeConstraints: { T: BASE_TYPES, T1: NUMERIC },
  create: () => ({
    run(ctx) {
      const x = ctx.input(0);
      const y = ctx.input(1);
      if (!(BASE_TYPES as readonly string[]).includes(x.type) || !NUMERIC.includes(y.type)) {
        throw new SwitchyardError('UNSUPPORTED', `Pow: ${x.type} ^ ${y.type} is not supported`);
      }
      const out = ctx.output(0, x.type, broadcastShape([x.dims, y.dims], 'Pow'));
      if (out.size === 0) return [out];
      const intExp = !isFloatType(y.type) && !isFloatType(x.type);
      const exp = toNumbers(y);
      if (x.type === 'int64') powInt64(x, y, out as Tensor<'int64'>);
      else if (x.type === 'float16' || x.type === 'bfloat16') {
        const tmp = new Float32Array(out.size);
        powNumbers(widenHalf(x.type, x.data as Uint16Array), x.dims, exp, y.dims, tmp, false, `f32^${y.type}`);
        narrowHalf(x.type, tmp, out.data as Uint16Array);
      } else {
        powNumbers(x.data as NumberArray, x.dims, exp, y.dims, out.data as NumberArray, intExp, `${x.type}^${y.type}`);
      }
      return [out];
    },
  }),
});
