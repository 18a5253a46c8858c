/**
 * DynamicQuantizeLinear: uint8 quantization with scale and zero point chosen from the data's range
 * (always including 0): scale = (max - min) / 255, zero_point = saturate(round(-min / scale)).
 * Arithmetic is in float32, as the spec and onnxruntime do, so the rounding matches.
 */
import { defineKernel, simpleKernel } from '@switchyard/core';
import { floatData } from '../nn/float-io.js';
import { roundHalfEven, saturate } from '../nn/quantize.js';

export const dynamicQuantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'DynamicQuantizeLinear',
  sinceVersion: 11,
  typeConstraints: { T1: ['float32'], T2: ['uint8'] },
  create: simpleKernel((ctx) => {
    const X = ctx.input(0);
    const x = floatData(X);
    let min = 0;
    let max = 0;
    for (let i = 0; i < x.length; i++) {
      if (x[i] < min) min = x[i];
      if (x[i] > max) max = x[i];
    }
    const range: [number, number] = [0, 255];
    // (max - min) rounds to float32 before the division, as in the spec's reference and onnxruntime.
    const scale = Math.fround(Math.fround(max - min) / 255);
    const zp = scale === 0 ? 0 : saturate(roundHalfEven(Math.fround(-min / scale)), range);
    const y = ctx.output(0, 'uint8', X.dims);
    const out = y.data as Uint8Array;
    for (let i = 0; i < x.length; i++) out[i] = scale === 0 ? zp : saturate(roundHalfEven(Math.fround(x[i] / scale)) + zp, range);
    const s = ctx.output(1, 'float32', []);
    (s.data as Float32Array)[0] = scale;
    const z = ctx.output(2, 'uint8', []);
    (z.data as Uint8Array)[0] = zp;
    return [y, s, z];
  }),
});
