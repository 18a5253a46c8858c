import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Div. Integer division truncates toward zero, as in C; int64 division by zero is an error. */
export const divKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Div',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: binaryKernel({
    opType: 'Div',
    types: NUMERIC,
    float: 'x / y',
    int: 'Math.trunc(x / y)',
    big: 'x / y',
  }),
});
