import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { variadicKernel } from '../math/elementwise.js';

/** ONNX Max. Variadic; NaN propagates for floats (`Math.max`). */
export const maxKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Max',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: variadicKernel({
    opType: 'Max',
    types: NUMERIC,
    float: 'Math.max(x, y)',
    int: 'x > y ? x : y',
    big: 'x > y ? x : y',
  }),
});
