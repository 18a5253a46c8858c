import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Softplus */
export const softplusKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Softplus',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Softplus',
    types: FLOATS,
    float: 'softplus(x)',
  }),
});
