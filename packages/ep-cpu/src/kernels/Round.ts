import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Round. Halves round to even, as numpy does. */
export const roundKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Round',
  sinceVersion: 11,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Round',
    types: FLOATS,
    float: 'roundHalfEven(x)',
  }),
});
