import { defineKernel } from '@switchyard/core';
import { SIGNED_NUMERIC } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Neg */
export const negKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Neg',
  sinceVersion: 1,
  typeConstraints: { T: SIGNED_NUMERIC },
  create: unaryKernel({
    opType: 'Neg',
    types: SIGNED_NUMERIC,
    float: '-x',
    big: '-x',
  }),
});
