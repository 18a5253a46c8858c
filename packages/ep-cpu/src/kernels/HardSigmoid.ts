import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX HardSigmoid */
export const hardSigmoidKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'HardSigmoid',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'HardSigmoid',
    types: FLOATS,
    float: 'Math.max(0, Math.min(1, alpha * x + beta))',
    params: ['alpha', 'beta'],
    readParams: ({ attrs }) => [attrs.float('alpha', 0.2), attrs.float('beta', 0.5)],
  }),
});
