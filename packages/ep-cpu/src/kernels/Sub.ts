import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Sub */
export const subKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sub',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: binaryKernel({
    opType: 'Sub',
    types: NUMERIC,
    float: 'x - y',
    big: 'x - y',
  }),
});
