import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Elu */
export const eluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Elu',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Elu',
    types: FLOATS,
    float: 'x < 0 ? alpha * Math.expm1(x) : x',
    params: ['alpha'],
    readParams: ({ attrs }) => [attrs.float('alpha', 1.0)],
  }),
});
