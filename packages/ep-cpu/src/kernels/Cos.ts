import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Cos */
export const cosKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Cos',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Cos',
    types: FLOATS,
    float: 'Math.cos(x)',
  }),
});
