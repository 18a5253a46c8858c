import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceSumSquare: Sum of squares. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceSumSquareKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceSumSquare',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceSumSquare',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + x * x',
    big: { init: '0n', step: 'acc + x * x' },
  }),
});
