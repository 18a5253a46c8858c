import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceProd: Product of the reduced elements. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceProdKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceProd',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceProd',
    types: REDUCE_TYPES,
    init: '1',
    step: 'acc * x',
    big: { init: '1n', step: 'BigInt.asIntN(64, acc * x)' },
  }),
});
