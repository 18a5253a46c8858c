import { defineKernel } from '@switchyard/core';
import { FLOATS } from '../math/dtypes.js';
import { binaryKernel } from '../math/elementwise.js';

const TYPES = [...FLOATS, 'int32', 'int64', 'uint32', 'uint64'] as const;

/** ONNX PRelu: `slope` broadcasts onto X (numpy rules from opset 7; older models use per-channel slopes of the same form). */
export const pReluKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'PRelu',
  sinceVersion: 1,
  typeConstraints: { T: TYPES },
  create: binaryKernel({
    opType: 'PRelu',
    types: TYPES,
    float: 'x < 0 ? x * y : x',
    int: 'x < 0 ? Math.imul(x, y) : x',
    wide: 'x < 0 ? x * y : x',
    big: 'x < 0n ? x * y : x',
  }),
});
