import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Acosh */
export const acoshKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Acosh',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Acosh',
    types: FLOATS,
    float: 'Math.acosh(x)',
  }),
});
