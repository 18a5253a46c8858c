import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Atanh */
export const atanhKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Atanh',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Atanh',
    types: FLOATS,
    float: 'Math.atanh(x)',
  }),
});
