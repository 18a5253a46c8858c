import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX GreaterOrEqual */
export const greaterOrEqualKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'GreaterOrEqual',
  sinceVersion: 12,
  typeConstraints: { T: NUMERIC, T1: ['bool'] },
  create: binaryKernel({
    opType: 'GreaterOrEqual',
    types: NUMERIC,
    float: 'x >= y',
    big: 'x >= y',
    output: 'bool',
  }),
});
