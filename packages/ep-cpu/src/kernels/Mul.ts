import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Mul. `Math.imul` keeps 32-bit integer products exact (a double product would lose low bits before wrapping). */
export const mulKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Mul',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: binaryKernel({
    opType: 'Mul',
    types: NUMERIC,
    float: 'x * y',
    int: 'Math.imul(x, y)',
    wide: 'x * y',
    big: 'x * y',
  }),
});
