import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Greater */
export const greaterKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Greater',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC, T1: ['bool'] },
  create: binaryKernel({
    opType: 'Greater',
    types: NUMERIC,
    float: 'x > y',
    big: 'x > y',
    output: 'bool',
  }),
});
