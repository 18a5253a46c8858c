/** ConvInteger: int32 convolution of (x - x_zero_point) with (w - w_zero_point), w's zero point per output channel or scalar. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { integerConv } from '../nn/qconv.js';

export const convIntegerKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ConvInteger',
  sinceVersion: 10,
  typeConstraints: { T1: ['int8', 'uint8'], T2: ['int8', 'uint8'], T3: ['int32'] },
  create: simpleKernel((ctx, init) => {
    const { acc, shape } = integerConv('ConvInteger', ctx.input(0), ctx.input(1), ctx.optionalInput(2), ctx.optionalInput(3), undefined, init.attrs);
    const y = ctx.output(0, 'int32', shape.outDims);
    (y.data as Int32Array).set(acc);
    return [y];
  }),
});
