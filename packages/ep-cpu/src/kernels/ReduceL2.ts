import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceL2: Euclidean norm. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceL2Kernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceL2',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceL2',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + x * x',
    final: 'Math.sqrt(acc)',
  }),
});
