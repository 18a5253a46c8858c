import { defineKernel } from '@switchyard/core';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX Xor */
export const xorKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Xor',
  sinceVersion: 1,
  typeConstraints: { T: ['bool'] },
  create: binaryKernel({
    opType: 'Xor',
    types: ['bool'],
    bool: 'x ^ y',
  }),
});
