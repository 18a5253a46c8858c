import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Softsign */
export const softsignKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Softsign',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Softsign',
    types: FLOATS,
    float: 'x / (1 + Math.abs(x))',
  }),
});
