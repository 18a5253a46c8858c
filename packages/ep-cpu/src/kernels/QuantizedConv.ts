/**
 * com.switchyard QuantizedConv: QLinearConv's nine inputs and attributes plus `relu` (0 / 1). What the
 * CPU EP's QDQ fusion makes of DequantizeLinear(x), DequantizeLinear(W) [, DequantizeLinear(B)] → Conv
 * [→ Relu] → QuantizeLinear: an int8 convolution requantized once (ONNX Runtime's QDQ → QLinearConv
 * transform, with the Relu folded into the lower saturation bound, which is exact).
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { requantizedConv } from './QLinearConv.js';

export const quantizedConvKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'QuantizedConv',
  sinceVersion: 1,
  create: simpleKernel((ctx, init) => [requantizedConv('QuantizedConv', ctx, init.attrs, init.attrs.int('relu', 0) !== 0)]),
});
