/** LpPool: (sum |x|^p)^(1/p) over sliding windows (p is a float in version 1, an int from version 2). */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { runWindowPool } from '../nn/pool-kernel.js';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';

export const lpPoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'LpPool',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => runWindowPool('LpPool', 'lp', ctx, init)),
});
