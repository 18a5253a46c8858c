/**
 * com.switchyard DynamicQuantizedConv(X: float32, W: uint8/int8, w_zero_point?, scales: float32, B?: float32)
 * → Y: float32, with Conv's attributes. What the CPU EP's dynamic-quantization fusion makes of
 * onnxruntime's `quantize_dynamic` pattern DynamicQuantizeLinear(X) → ConvInteger(·, W, x_zp, w_zp) →
 * Cast(float) → Mul(x_scale · scales) [→ Add(B)], computed the same way, every float step rounded to
 * float32 as the unfused graph's nodes do: the fused and unfused outputs are identical. `scales` and `B`
 * hold one value or one per output channel; attribute `relu` (0 / 1) applies a Relu after it all.
 */
import { SwitchyardError, Tensor, defineKernel, simpleKernel } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { floatData } from '../nn/float-io.js';
import { integerConv } from '../nn/qconv.js';
import { dynamicQuantize } from '../nn/quantize.js';
import { scaleInt32Products } from '../nn/dynamic-quantized.js';

export const dynamicQuantizedConvKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'DynamicQuantizedConv',
  sinceVersion: 1,
  create: simpleKernel((ctx, init) => {
    const op = 'DynamicQuantizedConv';
    const X = ctx.input(0);
    if (X.type !== 'float32') throw new SwitchyardError('INVALID_ARGUMENT', `${op}: X must be float32, got ${X.type}`);
    const xq = new Tensor('uint8', new Uint8Array(X.size), X.dims);
    const { scale, zeroPoint } = dynamicQuantize(floatData(X), xq.data as Uint8Array);
    const { acc, shape } = integerConv(op, xq, ctx.input(1), new Tensor('uint8', Uint8Array.of(zeroPoint), []), ctx.optionalInput(2), undefined, init.attrs);
    const y = ctx.output(0, 'float32', shape.outDims);
    const plane = acc.length / (shape.batch * shape.outChannels);
    const relu = init.attrs.int('relu', 0) !== 0;
    scaleInt32Products(op, acc, scale, ctx.input(3), ctx.optionalInput(4), shape.outChannels, (i) => Math.floor(i / plane) % shape.outChannels, relu, y.data as Float32Array);
    return [y];
  }),
});
