import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { variadicKernel } from '../math/elementwise.js';

/** ONNX Sum. Variadic. */
export const sumKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sum',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: variadicKernel({
    opType: 'Sum',
    types: NUMERIC,
    float: 'x + y',
    big: 'x + y',
  }),
});
