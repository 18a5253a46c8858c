import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceMax: Maximum; NaN wins, as in numpy. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceMaxKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceMax',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceMax',
    types: REDUCE_TYPES,
    init: '-Infinity',
    step: 'x > acc || x !== x ? x : acc',
    big: { init: '-(2n ** 64n)', step: 'x > acc ? x : acc' },
  }),
});
