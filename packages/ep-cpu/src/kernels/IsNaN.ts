import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX IsNaN: NaN is the one value unequal to itself. */
export const isNaNKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'IsNaN',
  sinceVersion: 9,
  typeConstraints: { T1: FLOATS, T2: ['bool'] },
  create: unaryKernel({ opType: 'IsNaN', types: FLOATS, float: 'x !== x', output: 'bool' }),
});
