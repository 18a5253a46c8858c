import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceSum: Sum of the reduced elements. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceSumKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceSum',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceSum',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + x',
    big: { init: '0n', step: 'acc + x' },
  }),
});
