import { defineKernel } from '@switchyard/core';
import { argReduceKernel } from '../math/arg-reduce.js';
import { NUMERIC } from '../math/dtypes.js';

/** ONNX ArgMin (`select_last_index` from opset 12). int64 values past 2^53 compare as doubles. */
export const argMinKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ArgMin',
  sinceVersion: 1,
  typeConstraints: { T: NUMERIC },
  create: argReduceKernel('ArgMin'),
});
