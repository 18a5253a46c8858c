/** MaxPool: max over sliding windows, with optional Indices (storage_order), ceil_mode and dilations; padding never wins. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { runWindowPool } from '../nn/pool-kernel.js';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';

export const maxPoolKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MaxPool',
  sinceVersion: 1,
  typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'int8', 'uint8'] },
  create: simpleKernel((ctx, init) => runWindowPool('MaxPool', 'max', ctx, init)),
});
