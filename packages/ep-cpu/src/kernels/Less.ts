import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Less */
export const lessKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Less',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC, T1: ['bool'] },
  create: binaryKernel({
    opType: 'Less',
    types: NUMERIC,
    float: 'x < y',
    big: 'x < y',
    output: 'bool',
  }),
});
