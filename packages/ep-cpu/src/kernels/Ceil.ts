import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Ceil */
export const ceilKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Ceil',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Ceil',
    types: FLOATS,
    float: 'Math.ceil(x)',
  }),
});
