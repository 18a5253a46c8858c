import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Erf. Integer inputs (allowed by the schema, used by no known model) are not served. */
export const erfKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Erf',
  sinceVersion: 9,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Erf',
    types: FLOATS,
    float: 'erf(x)',
  }),
});
