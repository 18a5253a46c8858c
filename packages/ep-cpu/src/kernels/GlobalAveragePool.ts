/** GlobalAveragePool: mean over all spatial positions of each (N, C) plane. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { runGlobalPool } from '../nn/pool-kernel.js';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';

export const globalAveragePoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'GlobalAveragePool',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => runGlobalPool('GlobalAveragePool', 'avg', ctx, init)),
});
