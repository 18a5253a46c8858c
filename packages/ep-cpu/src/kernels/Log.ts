import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Log */
export const logKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Log',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Log',
    types: FLOATS,
    float: 'Math.log(x)',
  }),
});
