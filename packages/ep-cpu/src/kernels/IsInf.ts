import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX IsInf, with `detect_negative` / `detect_positive` (both default 1). */
export const isInfKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'IsInf',
  sinceVersion: 10,
  typeConstraints: { T1: FLOATS, T2: ['bool'] },
  create: unaryKernel({
    opType: 'IsInf',
    types: FLOATS,
    float: '(x === Infinity && pos !== 0) || (x === -Infinity && neg !== 0)',
    output: 'bool',
    params: ['pos', 'neg'],
    readParams: ({ attrs }) => [attrs.int('detect_positive', 1), attrs.int('detect_negative', 1)],
  }),
});
