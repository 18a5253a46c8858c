import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX LeakyRelu */
export const leakyReluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LeakyRelu',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'LeakyRelu',
    types: FLOATS,
    float: 'x < 0 ? alpha * x : x',
    params: ['alpha'],
    readParams: ({ attrs }) => [attrs.float('alpha', 0.01)],
  }),
});
