import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Floor */
export const floorKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Floor',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Floor',
    types: FLOATS,
    float: 'Math.floor(x)',
  }),
});
