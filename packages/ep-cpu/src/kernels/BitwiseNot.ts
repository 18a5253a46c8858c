import { defineKernel } from '@switchyard/core';
import { INTS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX BitwiseNot. Opset 18. int64 always takes the BigInt path: `~` on a double would cut it to 32 bits. */
export const bitwiseNotKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitwiseNot',
  sinceVersion: 18,
  typeConstraints: { T: INTS },
  create: unaryKernel({
    opType: 'BitwiseNot',
    types: INTS,
    int: '~x',
    big: '~x',
    bigOnly: true,
  }),
});
