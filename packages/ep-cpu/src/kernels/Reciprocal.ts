import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Reciprocal */
export const reciprocalKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Reciprocal',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Reciprocal',
    types: FLOATS,
    float: '1 / x',
  }),
});
