import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Sin */
export const sinKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sin',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Sin',
    types: FLOATS,
    float: 'Math.sin(x)',
  }),
});
