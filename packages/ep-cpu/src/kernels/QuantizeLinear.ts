/** QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point); per-axis scales from opset 13. */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { axisParam, quantRange, roundHalfEven, saturate } from '../nn/quantize.js';

export const quantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'QuantizeLinear',
  sinceVersion: 10,
  typeConstraints: { T1: ['float32', 'int32'], T2: ['int8', 'uint8'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const scaleT = ctx.input(1);
    const zpT = ctx.optionalInput(2);
    const outType = zpT?.type ?? 'uint8';
    if (outType !== 'uint8' && outType !== 'int8') throw new SwitchyardError('INVALID_ARGUMENT', `QuantizeLinear: y_zero_point type ${outType} is not uint8 or int8`);
    const axis = init.opset >= 13 ? init.attrs.int('axis', 1) : 1;
    const scale = axisParam('QuantizeLinear', 'y_scale', scaleT, X.dims, axis)!;
    const zp = axisParam('QuantizeLinear', 'y_zero_point', zpT, X.dims, axis);
    const x = X.type === 'int32' ? (X.data as Int32Array) : floatData(X);
    const range = quantRange(outType);
    const y = ctx.output(0, outType, X.dims);
    const out = y.data as Uint8Array | Int8Array;
    for (let i = 0; i < X.size; i++) {
      const s = scale.values[scale.at(i)];
      const z = zp ? zp.values[zp.at(i)] : 0;
      out[i] = saturate(roundHalfEven(Math.fround(x[i] / s)) + z, range);
    }
    return [y];
  }),
});
