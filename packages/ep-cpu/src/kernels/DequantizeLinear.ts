/**
 * DequantizeLinear: y = (x − x_zero_point) · x_scale, computed in float32 and written as the scale's
 * type (or `output_dtype`, opset 23). x may be any of the quantized integer or float8/float4 types;
 * float8 zero points must be zero and float4e2m1's is ignored, as in the spec's reference.
 * Per-tensor, per-axis (opset 13) and blocked (opset 21) parameters.
 */
import { SwitchyardError, dataTypeFromOnnx, defineKernel, isSmallFloatType, simpleKernel } from '@switchyard/core';
import { SMALL_FLOATS } from '../math/dtypes.js';
import { toNumbers, writeNumbers } from '../math/numeric.js';
import { blockSizeAttr, quantParam } from '../nn/quant-params.js';

const INPUT_TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint4', 'int4', 'uint2', 'int2', ...SMALL_FLOATS.filter((t) => t !== 'float8e8m0')] as const;

export const dequantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'DequantizeLinear',
  sinceVersion: 10,
  // x is T in opsets 10–13 and T1 from 19; the output type is checked at run time.
  typeConstraints: { T: INPUT_TYPES, T1: INPUT_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const scaleT = ctx.input(1);
    const zpT = ctx.optionalInput(2);
    const axis = init.opset >= 13 ? init.attrs.int('axis', 1) : 1;
    const blockSize = init.opset >= 21 ? blockSizeAttr('DequantizeLinear', init.attrs.int('block_size', 0)) : 0;
    const requested = init.opset >= 23 ? init.attrs.int('output_dtype', 0) : 0;
    const outType = requested ? dataTypeFromOnnx(requested) : scaleT.type;
    if (outType !== 'float32' && outType !== 'float16' && outType !== 'bfloat16') {
      throw new SwitchyardError('INVALID_ARGUMENT', `DequantizeLinear: output type ${String(outType ?? requested)} is not float32, float16 or bfloat16`);
    }
    if (zpT && zpT.type !== X.type) throw new SwitchyardError('INVALID_ARGUMENT', `DequantizeLinear: x_zero_point is ${zpT.type} but x is ${X.type}`);
    const floatX = isSmallFloatType(X.type);
    const scale = quantParam('DequantizeLinear', 'x_scale', scaleT, X.dims, axis, blockSize)!;
    const zp = floatX ? undefined : quantParam('DequantizeLinear', 'x_zero_point', zpT, X.dims, axis, blockSize);
    if (floatX && zpT && X.type !== 'float4e2m1' && toNumbers(zpT).some((v) => v !== 0)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `DequantizeLinear: a ${X.type} x_zero_point must be zero`);
    }
    const x = toNumbers(X);
    const y = ctx.output(0, outType, X.dims);
    const out = new Float32Array(X.size);
    for (let i = 0; i < X.size; i++) out[i] = (x[i] - (zp ? zp.values[zp.at(i)] : 0)) * scale.values[scale.at(i)];
    if (y.data instanceof Float32Array) y.data.set(out);
    else writeNumbers(y, out);
    return [y];
  }),
});
