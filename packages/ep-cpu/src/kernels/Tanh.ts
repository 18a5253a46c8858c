import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Tanh */
export const tanhKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Tanh',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Tanh',
    types: FLOATS,
    float: 'Math.tanh(x)',
  }),
});
