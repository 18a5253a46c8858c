import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX ThresholdedRelu */
export const thresholdedReluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ThresholdedRelu',
  sinceVersion: 10,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'ThresholdedRelu',
    types: FLOATS,
    float: 'x > alpha ? x : 0',
    params: ['alpha'],
    readParams: ({ attrs }) => [attrs.float('alpha', 1.0)],
  }),
});
