/** GRU (opsets 7 and 14; 14 adds `layout`): see nn/rnn.ts for the shared driver. */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES } from '../nn/float-io.js';
import { runRecurrent } from '../nn/rnn.js';

export const gruKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'GRU',
  sinceVersion: 7,
  typeConstraints: { T: FLOAT_KERNEL_TYPES, T1: ['int32'] },
  create: simpleKernel((ctx, init) => runRecurrent('gru', ctx, init)),
});
