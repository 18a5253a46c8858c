import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceL1: Sum of absolute values. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceL1Kernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceL1',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceL1',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + Math.abs(x)',
    big: { init: '0n', step: 'acc + (x < 0n ? -x : x)' },
  }),
});
