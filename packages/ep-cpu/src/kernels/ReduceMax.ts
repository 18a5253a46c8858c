import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

const TYPES = [...REDUCE_TYPES, 'bool'] as const;

/** ONNX ReduceMax: Maximum; NaN wins, as in numpy. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceMaxKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceMax',
  sinceVersion: 1,
  typeConstraints: { T: TYPES },
  create: reduceKernel({
    opType: 'ReduceMax',
    types: TYPES,
    init: '-Infinity',
    step: 'x > acc || x !== x ? x : acc',
    // bool (opset 20): the loop sees 0/1, and an empty reduction gives false, the identity of or.
    bool: { init: '0', step: 'x > acc ? x : acc' },
    big: { init: '-(2n ** 64n)', step: 'x > acc ? x : acc' },
  }),
});
