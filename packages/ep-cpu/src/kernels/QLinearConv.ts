/**
 * QLinearConv: y = saturate(round((conv(x - x_zp, w - w_zp) + B) · x_scale·w_scale / y_scale) + y_zp),
 * w_scale/w_zero_point scalar or per output channel; requantization in float32 like onnxruntime.
 */
import { SwitchyardError, defineKernel, simpleKernel, type AttributeReader, type KernelRunContext, type Tensor } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { integerConv } from '../nn/qconv.js';
import { intData, quantRange, roundHalfEven, saturate } from '../nn/quantize.js';

/**
 * QLinearConv's computation on its nine inputs (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B);
 * `relu` raises results below y's zero point to it (the QDQ fusion's Conv → Relu → QuantizeLinear).
 */
export function requantizedConv(op: string, ctx: KernelRunContext, attrs: AttributeReader, relu: boolean): Tensor {
  const yZero = ctx.input(7);
  const { acc, shape } = integerConv(op, ctx.input(0), ctx.input(3), ctx.input(2), ctx.input(5), ctx.optionalInput(8), attrs);
  const xScale = floatData(ctx.input(1))[0];
  const wScale = floatData(ctx.input(4));
  const M = shape.outChannels;
  if (wScale.length !== 1 && wScale.length !== M) throw new SwitchyardError('INVALID_SHAPE', `${op}: w_scale must be a scalar or have ${M} entries`);
  const yScale = floatData(ctx.input(6))[0];
  const zp = intData(yZero, `${op} y_zero_point`)[0];
  const [lo, hi] = quantRange(yZero.type);
  const range: [number, number] = [relu ? Math.max(lo, zp) : lo, hi];
  const y = ctx.output(0, yZero.type, shape.outDims);
  const out = y.data as Uint8Array | Int8Array;
  const plane = acc.length / (shape.batch * M);
  for (let i = 0; i < acc.length; i++) {
    const m = Math.floor(i / plane) % M;
    const mult = Math.fround(Math.fround(xScale * wScale[wScale.length === 1 ? 0 : m]) / yScale);
    out[i] = saturate(roundHalfEven(Math.fround(acc[i] * mult)) + zp, range);
  }
  return y;
}

export const qLinearConvKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'QLinearConv',
  sinceVersion: 10,
  typeConstraints: { T1: ['int8', 'uint8'], T2: ['int8', 'uint8'], T3: ['int8', 'uint8'], T4: ['int32'] },
  create: simpleKernel((ctx, init) => [requantizedConv('QLinearConv', ctx, init.attrs, false)]),
});
