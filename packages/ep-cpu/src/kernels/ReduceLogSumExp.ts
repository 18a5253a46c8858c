import { defineKernel } from '@switchyard/core';
import { REDUCE_TYPES, reduceKernel } from '../math/reduce.js';

/** ONNX ReduceLogSumExp: log Σ exp(x), shifted by the maximum (`m`, from a first pass) so exp cannot overflow. Axes come from the attribute or, in newer opsets, input 1. */
export const reduceLogSumExpKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ReduceLogSumExp',
  sinceVersion: 1,
  typeConstraints: { T: REDUCE_TYPES },
  create: reduceKernel({
    opType: 'ReduceLogSumExp',
    types: REDUCE_TYPES,
    prepass: { init: '-Infinity', step: 'x > acc ? x : acc' },
    init: '0',
    step: 'acc + Math.exp(x - m)',
    final: 'm === Infinity || m === -Infinity ? m : m + Math.log(acc)',
  }),
});
