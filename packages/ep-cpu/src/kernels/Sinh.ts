import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Sinh */
export const sinhKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sinh',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Sinh',
    types: FLOATS,
    float: 'Math.sinh(x)',
  }),
});
