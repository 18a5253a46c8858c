/**
 * com.switchyard QuantizedMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp[, bias]) with `relu`
 * (0 / 1): QLinearMatMul with an int32 bias per column (in the product's scale) added before requantizing,
 * and Relu folded into the lower saturation bound. What the CPU EP's QDQ fusion makes of
 * DequantizeLinear → MatMul / Gemm [→ Add(bias)] [→ Relu] → QuantizeLinear.
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { requantizedMatMul } from './QLinearMatMul.js';

export const quantizedMatMulKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'QuantizedMatMul',
  sinceVersion: 1,
  create: simpleKernel((ctx, init) => [requantizedMatMul('QuantizedMatMul', ctx, ctx.optionalInput(8), init.attrs.int('relu', 0) !== 0)]),
});
