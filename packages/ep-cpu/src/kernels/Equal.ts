import { defineKernel } from '@switchyard/core';
import { NUMERIC_AND_BOOL } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Equal */
export const equalKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Equal',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC_AND_BOOL, T1: ['bool'] },
  create: binaryKernel({
    opType: 'Equal',
    types: NUMERIC_AND_BOOL,
    float: 'x === y',
    big: 'x === y',
    output: 'bool',
  }),
});
