/** AveragePool: mean over sliding windows; count_include_pad picks whether padding counts in the divisor. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { runWindowPool } from '../nn/pool-kernel.js';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';

export const averagePoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'AveragePool',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => runWindowPool('AveragePool', 'avg', ctx, init)),
});
