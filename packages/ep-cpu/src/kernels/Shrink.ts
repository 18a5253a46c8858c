import { defineKernel } from '@switchyard/core';
import { NUMERIC } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/**
 * ONNX Shrink: x < −lambd → x + bias, x > lambd → x − bias, else 0. Integer results truncate like a
 * C cast of the float result; int64 stays exact below 2^53 and is refused beyond.
 */
export const shrinkKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Shrink',
  sinceVersion: 9,
  typeConstraints: { T: NUMERIC },
  create: unaryKernel({
    opType: 'Shrink',
    types: NUMERIC,
    float: 'x < -lambd ? x + bias : x > lambd ? x - bias : 0',
    wide: 'x < -lambd ? Math.trunc(x + bias) : x > lambd ? Math.trunc(x - bias) : 0',
    params: ['lambd', 'bias'],
    readParams: ({ attrs }) => [attrs.float('lambd', 0.5), attrs.float('bias', 0)],
  }),
});
