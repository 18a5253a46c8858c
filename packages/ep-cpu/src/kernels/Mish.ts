import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Mish. Opset 18 (newer than the bundled schemas, so the registry matches it by opset number). */
export const mishKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Mish',
  sinceVersion: 18,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Mish',
    types: FLOATS,
    float: 'x * Math.tanh(softplus(x))',
  }),
});
