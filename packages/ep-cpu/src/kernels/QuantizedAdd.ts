/**
 * com.switchyard QuantizedAdd(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) with
 * `relu` (0 / 1): what the CPU EP's QDQ fusion makes of DequantizeLinear(a), DequantizeLinear(b) → Add
 * [→ Relu] → QuantizeLinear (a residual connection in a QDQ model), computed with the unfused nodes' float
 * steps, so the result is identical to theirs. Per-tensor parameters; a and b have one shape.
 */
import { SwitchyardError, defineKernel, simpleKernel, type Tensor } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { floatData } from '../nn/float-io.js';
import { intData, quantRange, roundHalfEven, saturate } from '../nn/quantize.js';

function perTensor(t: Tensor | undefined, what: string): number {
  if (!t) return 0;
  if (t.size !== 1) throw new SwitchyardError('INVALID_SHAPE', `QuantizedAdd: ${what} must hold one value, got [${t.dims.join(', ')}]`);
  return t.type === 'float32' ? floatData(t)[0] : intData(t, `QuantizedAdd ${what}`)[0];
}

export const quantizedAddKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'QuantizedAdd',
  sinceVersion: 1,
  create: simpleKernel((ctx, init) => {
    const a = ctx.input(0);
    const b = ctx.input(3);
    if (a.dims.length !== b.dims.length || a.dims.some((d, i) => d !== b.dims[i])) {
      throw new SwitchyardError('INVALID_ARGUMENT', `QuantizedAdd: a [${a.dims.join(', ')}] and b [${b.dims.join(', ')}] must have one shape`);
    }
    const [as, az, bs, bz, ys] = [perTensor(ctx.input(1), 'a_scale'), perTensor(ctx.optionalInput(2), 'a_zero_point'), perTensor(ctx.input(4), 'b_scale'), perTensor(ctx.optionalInput(5), 'b_zero_point'), perTensor(ctx.input(6), 'y_scale')];
    const yZero = ctx.optionalInput(7);
    const type = yZero?.type ?? 'uint8';
    const yz = perTensor(yZero, 'y_zero_point');
    const [lo, hi] = quantRange(type);
    const relu = init.attrs.int('relu', 0) !== 0;
    const x = intData(a, 'QuantizedAdd a');
    const w = intData(b, 'QuantizedAdd b');
    const y = ctx.output(0, type, a.dims);
    const out = y.data as Uint8Array | Int8Array;
    for (let i = 0; i < out.length; i++) {
      const sum = Math.fround(Math.fround((x[i] - az) * as) + Math.fround((w[i] - bz) * bs));
      const r = relu && sum < 0 ? 0 : sum;
      out[i] = saturate(roundHalfEven(Math.fround(r / ys)) + yz, [lo, hi]);
    }
    return [y];
  }),
});
