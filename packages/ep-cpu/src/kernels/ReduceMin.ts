import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

const TYPES = [...REDUCE_TYPES, 'bool'] as const;

/** ONNX ReduceMin: Minimum; NaN wins, as in numpy. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceMinKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceMin',
  sinceVersion: 1,
  typeConstraints: { T: TYPES },
  create: reduceKernel({
    opType: 'ReduceMin',
    types: TYPES,
    init: 'Infinity',
    step: 'x < acc || x !== x ? x : acc',
    // bool (opset 20): the loop sees 0/1, and an empty reduction gives true, the identity of and.
    bool: { init: '1', step: 'x < acc ? x : acc' },
    big: { init: '2n ** 64n', step: 'x < acc ? x : acc' },
  }),
});
