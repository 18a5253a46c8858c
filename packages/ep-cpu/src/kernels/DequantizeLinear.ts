/** DequantizeLinear: y = (x - x_zero_point) · x_scale as float32; per-axis parameters from opset 13. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { axisParam, intData } from '../nn/quantize.js';

export const dequantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'DequantizeLinear',
  sinceVersion: 10,
  typeConstraints: { T: ['int8', 'uint8', 'int32'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const axis = init.opset >= 13 ? init.attrs.int('axis', 1) : 1;
    const scale = axisParam('DequantizeLinear', 'x_scale', ctx.input(1), X.dims, axis)!;
    const zp = axisParam('DequantizeLinear', 'x_zero_point', ctx.optionalInput(2), X.dims, axis);
    const x = intData(X, 'DequantizeLinear x');
    const y = ctx.output(0, 'float32', X.dims);
    const out = y.data as Float32Array;
    for (let i = 0; i < X.size; i++) out[i] = (x[i] - (zp ? zp.values[zp.at(i)] : 0)) * scale.values[scale.at(i)];
    return [y];
  }),
});
