import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Exp */
export const expKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Exp',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Exp',
    types: FLOATS,
    float: 'Math.exp(x)',
  }),
});
