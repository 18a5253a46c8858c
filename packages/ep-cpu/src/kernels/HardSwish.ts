import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX HardSwish. HardSigmoid with alpha = 1/6, beta = 0.5, times x. */
export const hardSwishKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'HardSwish',
  sinceVersion: 14,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'HardSwish',
    types: FLOATS,
    float: 'x * Math.max(0, Math.min(1, x / 6 + 0.5))',
  }),
});
