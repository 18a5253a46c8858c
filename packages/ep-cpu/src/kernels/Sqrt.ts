import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Sqrt */
export const sqrtKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sqrt',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Sqrt',
    types: FLOATS,
    float: 'Math.sqrt(x)',
  }),
});
