/**
 * QLinearMatMul: y = saturate(round((a - a_zp)·(b - b_zp) · a_scale·b_scale / y_scale) + y_zp), the
 * requantization done in float32 like onnxruntime. Scales and zero points may be per row of a /
 * per column of b.
 */
import { SwitchyardError, defineKernel, float16BitsToFloat32, float32ToFloat16Bits, simpleKernel, type KernelRunContext, type Tensor } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { integerMatMul } from '../nn/qgemm.js';
import { intData, quantRange, roundHalfEven, saturate } from '../nn/quantize.js';

function perIndex(op: string, what: string, t: Tensor, count: number): (i: number) => number {
  const v = t.type === 'float32' || t.type === 'float64' || t.type === 'float16' || t.type === 'bfloat16' ? floatData(t) : intData(t, what);
  if (t.size === 1) return () => v[0];
  if (t.size === count) return (i) => v[i];
  throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must be a scalar or have ${count} entries`);
}

/**
 * QLinearMatMul's computation on its eight inputs (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp);
 * `bias` (int32, one per column, in the product's scale) is added before requantizing and `relu`
 * raises results below y's zero point to it (the QDQ fusion's MatMul/Gemm → [Add] → [Relu] → QuantizeLinear).
 */
export function requantizedMatMul(op: string, ctx: KernelRunContext, bias: Tensor | undefined, relu: boolean): Tensor {
  const A = ctx.input(0);
  const B = ctx.input(3);
  const yZero = ctx.input(7);
  const { acc, plan } = integerMatMul(op, A, B, ctx.input(2), ctx.input(5));
  const { M, N } = plan;
  const aScale = perIndex(op, 'a_scale', ctx.input(1), M);
  const bScale = perIndex(op, 'b_scale', ctx.input(4), N);
  const biasAt = bias ? perIndex(op, 'bias', bias, N) : () => 0;
  if (bias && bias.size !== N) throw new SwitchyardError('INVALID_SHAPE', `${op}: bias must have ${N} entries`);
  const yScale = floatData(ctx.input(6))[0];
  const zp = intData(yZero, `${op} y_zero_point`)[0];
  const outType = yZero.type;
  const [lo, hi] = quantRange(outType);
  const range: [number, number] = [relu ? Math.max(lo, zp) : lo, hi];
  const y = ctx.output(0, outType, plan.outDims);
  const out = y.data as Uint8Array | Int8Array;
  if (ctx.input(6).type === 'float16') {
    // float16 scales (opset 21): the scale ratio is a float16 computation, as in the spec's reference;
    // the product with the accumulator is then exact enough in doubles.
    const half = (v: number) => float16BitsToFloat32(float32ToFloat16Bits(v));
    for (let i = 0; i < acc.length; i++) {
      const row = Math.floor(i / N) % M;
      const mult = half(half(aScale(row) * bScale(i % N)) / yScale);
      out[i] = saturate(roundHalfEven((acc[i] + biasAt(i % N)) * mult) + zp, range);
    }
    return y;
  }
  for (let i = 0; i < acc.length; i++) {
    const row = Math.floor(i / N) % M;
    const mult = Math.fround(Math.fround(aScale(row) * bScale(i % N)) / yScale);
    out[i] = saturate(roundHalfEven(Math.fround((acc[i] + biasAt(i % N)) * mult)) + zp, range);
  }
  return y;
}

export const qLinearMatMulKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'QLinearMatMul',
  sinceVersion: 10,
  typeConstraints: { T1: ['int8', 'uint8'], T2: ['int8', 'uint8'], T3: ['int8', 'uint8'], TS: ['float32', 'float16'] },
  create: simpleKernel((ctx) => [requantizedMatMul('QLinearMatMul', ctx, undefined, false)]),
});
