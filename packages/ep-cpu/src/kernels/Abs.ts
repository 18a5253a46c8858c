import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Abs */
export const absKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Abs',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: unaryKernel({
    opType: 'Abs',
    types: NUMERIC,
    float: 'Math.abs(x)',
    big: 'x < 0n ? -x : x',
  }),
});
