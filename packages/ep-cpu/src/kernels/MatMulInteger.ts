/** MatMulInteger: int32 (A - a_zero_point) · (B - b_zero_point) with MatMul's broadcasting. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { integerMatMul } from '../nn/qgemm.js';

export const matMulIntegerKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MatMulInteger',
  sinceVersion: 10,
  typeConstraints: { T1: ['int8', 'uint8'], T2: ['int8', 'uint8'], T3: ['int32'] },
  create: simpleKernel((ctx) => {
    const { acc, plan } = integerMatMul('MatMulInteger', ctx.input(0), ctx.input(1), ctx.optionalInput(2), ctx.optionalInput(3));
    const y = ctx.output(0, 'int32', plan.outDims);
    (y.data as Int32Array).set(acc);
    return [y];
  }),
});
