import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceLogSum: log of the sum. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceLogSumKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceLogSum',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceLogSum',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + x',
    final: 'Math.log(acc)',
  }),
});
