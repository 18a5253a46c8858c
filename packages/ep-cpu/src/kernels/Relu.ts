import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { unaryKernel } from '../math/elementwise.js';

/** ONNX Relu. Integer types arrive with opset 14; `x < 0` keeps NaN and -0 as they are. */
export const reluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Relu',
  sinceVersion: 1,
  typeConstraints: { T: [...FLOATS, 'int8', 'int16', 'int32', 'int64'] },
  create: unaryKernel({
    opType: 'Relu',
    types: [...FLOATS, 'int8', 'int16', 'int32', 'int64'],
    float: 'x < 0 ? 0 : x',
    big: 'x < 0n ? 0n : x',
  }),
});
