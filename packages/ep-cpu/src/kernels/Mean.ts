import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { computeUnary, variadicKernel } from '../math/elementwise.js';

const divide = { opType: 'Mean', types: FLOATS, float: 'x / count', params: ['count'] };

/** ONNX Mean: the variadic sum, divided by the number of inputs. */
export const meanKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Mean',
  sinceVersion: 1,
  typeConstraints: { T: FLOATS },
  create: variadicKernel({ opType: 'Mean', types: FLOATS, float: 'x + y' }, (out, count) =>
    computeUnary(divide, out, out, [count]),
  ),
});
