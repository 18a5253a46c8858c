import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Selu */
export const seluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Selu',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Selu',
    types: FLOATS,
    float: 'x <= 0 ? gamma * alpha * Math.expm1(x) : gamma * x',
    params: ['alpha', 'gamma'],
    readParams: ({ attrs }) => [attrs.float('alpha', 1.6732631921768188), attrs.float('gamma', 1.0507010221481323)],
  }),
});
