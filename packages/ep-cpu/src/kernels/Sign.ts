import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Sign */
export const signKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Sign',
  sinceVersion: 9,
  typeConstraints: { T: NUMERIC },
  create: unaryKernel({
    opType: 'Sign',
    types: NUMERIC,
    float: 'Math.sign(x)',
    big: 'x > 0n ? 1n : x < 0n ? -1n : 0n',
  }),
});
