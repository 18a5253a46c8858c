import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Asinh */
export const asinhKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Asinh',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Asinh',
    types: FLOATS,
    float: 'Math.asinh(x)',
  }),
});
