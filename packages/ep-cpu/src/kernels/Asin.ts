import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Asin */
export const asinKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Asin',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Asin',
    types: FLOATS,
    float: 'Math.asin(x)',
  }),
});
