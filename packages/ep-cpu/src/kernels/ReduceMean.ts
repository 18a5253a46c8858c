import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceMean: Mean of the reduced elements (integer means truncate). Axes come from the attribute or, in newer opsets, input 1. */
export const reduceMeanKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceMean',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceMean',
    types: REDUCE_TYPES,
    init: '0',
    step: 'acc + x',
    final: 'acc / n',
    big: { init: '0n', step: 'acc + x', final: 'n === 0 ? 0n : acc / BigInt(n)' },
  }),
});
