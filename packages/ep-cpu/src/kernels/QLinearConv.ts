/**
 * QLinearConv: y = saturate(round((conv(x - x_zp, w - w_zp) + B) · x_scale·w_scale / y_scale) + y_zp),
 * w_scale/w_zero_point scalar or per output channel; requantization in float32 like onnxruntime.
 */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { integerConv } from '../nn/qconv.js';
import { intData, quantRange, roundHalfEven, saturate } from '../nn/quantize.js';

export const qLinearConvKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'QLinearConv',
  sinceVersion: 10,
  typeConstraints: { T1: ['int8', 'uint8'], T2: ['int8', 'uint8'], T3: ['int8', 'uint8'], T4: ['int32'] },
  create: simpleKernel((ctx, init) => {
    const yZero = ctx.input(7);
    const { acc, shape } = integerConv('QLinearConv', ctx.input(0), ctx.input(3), ctx.input(2), ctx.input(5), ctx.optionalInput(8), init.attrs);
    const xScale = floatData(ctx.input(1))[0];
    const wScaleT = ctx.input(4);
    const wScale = floatData(wScaleT);
    const M = shape.outChannels;
    if (wScale.length !== 1 && wScale.length !== M) throw new SwitchyardError('INVALID_SHAPE', `QLinearConv: w_scale must be a scalar or have ${M} entries`);
    const yScale = floatData(ctx.input(6))[0];
    const zp = intData(yZero, 'QLinearConv y_zero_point')[0];
    const range = quantRange(yZero.type);
    const y = ctx.output(0, yZero.type, shape.outDims);
    const out = y.data as Uint8Array | Int8Array;
    const plane = acc.length / (shape.batch * M);
    for (let i = 0; i < acc.length; i++) {
      const m = Math.floor(i / plane) % M;
      const mult = Math.fround(Math.fround(xScale * wScale[wScale.length === 1 ? 0 : m]) / yScale);
      out[i] = saturate(roundHalfEven(Math.fround(acc[i] * mult)) + zp, range);
    }
    return [y];
  }),
});
