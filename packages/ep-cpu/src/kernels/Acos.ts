import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Acos */
export const acosKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Acos',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Acos',
    types: FLOATS,
    float: 'Math.acos(x)',
  }),
});
