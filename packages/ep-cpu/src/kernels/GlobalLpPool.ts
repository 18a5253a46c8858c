/** GlobalLpPool: Lp norm over all spatial positions of each (N, C) plane. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { runGlobalPool } from '../nn/pool-kernel.js';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';

export const globalLpPoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'GlobalLpPool',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => runGlobalPool('GlobalLpPool', 'lp', ctx, init)),
});
