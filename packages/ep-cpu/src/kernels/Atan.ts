import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Atan */
export const atanKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Atan',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Atan',
    types: FLOATS,
    float: 'Math.atan(x)',
  }),
});
