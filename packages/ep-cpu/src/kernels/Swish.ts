import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Swish (opset 24): x · σ(alpha · x). */
export const swishKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Swish',
  sinceVersion: 24,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Swish',
    types: FLOATS,
    float: 'x * sigmoid(alpha * x)',
    params: ['alpha'],
    readParams: ({ attrs }) => [attrs.float('alpha', 1.0)],
  }),
});
