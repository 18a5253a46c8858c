import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { variadicKernel } from '../math/elementwise.js';

/** ONNX Min. Variadic; NaN propagates for floats (`Math.min`). */
export const minKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Min',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: variadicKernel({
    opType: 'Min',
    types: NUMERIC,
    float: 'Math.min(x, y)',
    int: 'x < y ? x : y',
    big: 'x < y ? x : y',
  }),
});
