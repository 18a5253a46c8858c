import { defineKernel } from '@switchyard/core';
import { INTS } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX BitwiseOr. Opset 18. int64 always takes the BigInt path: bit operators on doubles cut them to 32 bits. */
export const bitwiseOrKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitwiseOr',
  sinceVersion: 18,
  typeConstraints: { T: INTS },
  create: binaryKernel({
    opType: 'BitwiseOr',
    types: INTS,
    int: 'x | y',
    big: 'x | y',
    bigOnly: true,
  }),
});
