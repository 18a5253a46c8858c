import { defineKernel } from '@switchyard/core';
import { INTS } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

/** ONNX BitwiseAnd. Opset 18. int64 always takes the BigInt path: bit operators on doubles cut them to 32 bits. */
export const bitwiseAndKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitwiseAnd',
  sinceVersion: 18,
  typeConstraints: { T: INTS },
  create: binaryKernel({
    opType: 'BitwiseAnd',
    types: INTS,
    int: 'x & y',
    big: 'x & y',
    bigOnly: true,
  }),
});
