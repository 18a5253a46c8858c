/**
 * com.switchyard DynamicQuantizedMatMul(A: float32, B: uint8/int8, b_zero_point?, scales: float32, bias?: float32)
 * → Y: float32. The MatMul twin of DynamicQuantizedConv: DynamicQuantizeLinear(A) → MatMulInteger(·, B,
 * a_zp, b_zp) → Cast(float) → Mul(a_scale · scales) [→ Add(bias)], step by step as the unfused graph
 * computes it. `scales` and `bias` hold one value or one per column (Y's last dim); `relu` (0 / 1) as in DynamicQuantizedConv.
 */
import { SwitchyardError, Tensor, defineKernel, simpleKernel } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { floatData } from '../nn/float-io.js';
import { integerMatMul } from '../nn/qgemm.js';
import { dynamicQuantize } from '../nn/quantize.js';
import { scaleInt32Products } from '../nn/dynamic-quantized.js';

export const dynamicQuantizedMatMulKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'DynamicQuantizedMatMul',
  sinceVersion: 1,
  create: simpleKernel((ctx, init) => {
    const op = 'DynamicQuantizedMatMul';
    const A = ctx.input(0);
    if (A.type !== 'float32') throw new SwitchyardError('INVALID_ARGUMENT', `${op}: A must be float32, got ${A.type}`);
    const aq = new Tensor('uint8', new Uint8Array(A.size), A.dims);
    const { scale, zeroPoint } = dynamicQuantize(floatData(A), aq.data as Uint8Array);
    const { acc, plan } = integerMatMul(op, aq, ctx.input(1), new Tensor('uint8', Uint8Array.of(zeroPoint), []), ctx.optionalInput(2));
    const y = ctx.output(0, 'float32', plan.outDims);
    scaleInt32Products(op, acc, scale, ctx.input(3), ctx.optionalInput(4), plan.N, (i) => i % plan.N, init.attrs.int('relu', 0) !== 0, y.data as Float32Array);
    return [y];
  }),
});
