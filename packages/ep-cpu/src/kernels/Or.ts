import { defineKernel } from '@switchyard/core';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Or */
export const orKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Or',
  sinceVersion: 1,
  typeConstraints: { T: ['bool'] },
  create: binaryKernel({
    opType: 'Or',
    types: ['bool'],
    bool: 'x | y',
  }),
});
