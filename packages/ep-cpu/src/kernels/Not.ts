import { defineKernel } from '@switchyard/core';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Not (bool only). */
export const notKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Not',
  sinceVersion: 1,
  typeConstraints: { T: ['bool'] },
  create: unaryKernel({ opType: 'Not', types: ['bool'], bool: 'x ^ 1' }),
});
