import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Sigmoid */
export const sigmoidKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sigmoid',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Sigmoid',
    types: FLOATS,
    float: 'sigmoid(x)',
  }),
});
