import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Cosh */
export const coshKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Cosh',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Cosh',
    types: FLOATS,
    float: 'Math.cosh(x)',
  }),
});
