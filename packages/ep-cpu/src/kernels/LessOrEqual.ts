import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX LessOrEqual */
export const lessOrEqualKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LessOrEqual',
  sinceVersion: 12,
  typeConstraints: { T: NUMERIC, T1: ['bool'] },
  create: binaryKernel({
    opType: 'LessOrEqual',
    types: NUMERIC,
    float: 'x <= y',
    big: 'x <= y',
    output: 'bool',
  }),
});
