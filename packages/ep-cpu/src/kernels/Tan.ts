import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Tan */
export const tanKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Tan',
  sinceVersion: 7,
  typeConstraints: { T: FLOATS },
  create: unaryKernel({
    opType: 'Tan',
    types: FLOATS,
    float: 'Math.tan(x)',
  }),
});
