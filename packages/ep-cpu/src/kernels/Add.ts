import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Add */
export const addKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Add',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: binaryKernel({
    opType: 'Add',
    types: NUMERIC,
    float: 'x + y',
    big: 'x + y',
  }),
});
