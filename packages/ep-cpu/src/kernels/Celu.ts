import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Celu */
export const celuKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Celu',
  sinceVersion: 12,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Celu',
    types: FLOATS,
    float: 'Math.max(0, x) + Math.min(0, alpha * Math.expm1(x / alpha))',
    params: ['alpha'],
    readParams: ({ attrs }) => [attrs.float('alpha', 1.0)],
  }),
});
