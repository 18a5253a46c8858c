import { defineKernel } from '@switchyard/core';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX And */
export const andKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'And',
  sinceVersion: 1,
  typeConstraints: { T: ['bool'] },
  create: binaryKernel({
    opType: 'And',
    types: ['bool'],
    bool: 'x & y',
  }),
});
