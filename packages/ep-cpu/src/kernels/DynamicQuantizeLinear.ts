/**
 * DynamicQuantizeLinear: uint8 quantization with scale and zero point chosen from the data's range
 * (always including 0): scale = (max - min) / 255, zero_point = saturate(round(-min / scale)).
 * Arithmetic is in float32, as the spec and onnxruntime do, so the rounding matches.
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { dynamicQuantize } from '../nn/quantize.js';

export const dynamicQuantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'DynamicQuantizeLinear',
  sinceVersion: 11,
  typeConstraints: { T1: ['float32'], T2: ['uint8'] },
  create: simpleKernel((ctx) => {
    const X = ctx.input(0);
    const y = ctx.output(0, 'uint8', X.dims);
    const { scale, zeroPoint } = dynamicQuantize(floatData(X), y.data as Uint8Array);
    const s = ctx.output(1, 'float32', []);
    (s.data as Float32Array)[0] = scale;
    const z = ctx.output(2, 'uint8', []);
    (z.data as Uint8Array)[0] = zeroPoint;
    return [y, s, z];
  }),
});
