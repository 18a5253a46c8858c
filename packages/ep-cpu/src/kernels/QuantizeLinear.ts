/**
 * QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point) for the integer outputs
 * (8/16/4/2-bit); for the float8 outputs y = cast(x / y_scale) (saturating unless `saturate` = 0, zero
 * point unused); for float4e2m1 y = cast(x / y_scale + y_zero_point). Per-tensor, per-axis (opset 13)
 * and blocked (opset 21) scales; `output_dtype` (21) picks the type when there is no zero point;
 * `precision` (25) is the float type the division is done in.
 */
import { SwitchyardError, dataTypeFromOnnx, defineKernel, float16BitsToFloat32, float32ToBfloat16Bits, float32ToFloat16Bits, bfloat16BitsToFloat32, isSmallFloatType, simpleKernel, type DataType } from '@switchyard/core';
import { SMALL_FLOATS } from '../math/dtypes.js';
import { toNumbers, writeNumbers } from '../math/numeric.js';
import { blockSizeAttr, quantParam } from '../nn/quant-params.js';
import { roundHalfEven, saturate } from '../nn/quantize.js';

const INTEGER_RANGES: Partial<Record<DataType, [number, number]>> = {
  uint8: [0, 255],
  int8: [-128, 127],
  uint16: [0, 65535],
  int16: [-32768, 32767],
  uint4: [0, 15],
  int4: [-8, 7],
  uint2: [0, 3],
  int2: [-2, 1],
};
const OUTPUT_TYPES = [...(Object.keys(INTEGER_RANGES) as DataType[]), ...SMALL_FLOATS.filter((t) => t !== 'float8e8m0')];

/** Rounds a double quotient to the float type the division is specified in. */
function rounderFor(type: DataType): (v: number) => number {
  if (type === 'float16') return (v) => float16BitsToFloat32(float32ToFloat16Bits(v));
  if (type === 'bfloat16') return (v) => bfloat16BitsToFloat32(float32ToBfloat16Bits(v));
  if (type === 'float64') return (v) => v;
  return Math.fround;
}

/** numpy's result type for x / scale: float16 only when both are float16, bfloat16 likewise, else float32. */
function divisionType(x: DataType, scale: DataType): DataType {
  if (x === scale && (x === 'float16' || x === 'bfloat16')) return x;
  return 'float32';
}

export const quantizeLinearKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'QuantizeLinear',
  sinceVersion: 10,
  // T2 names the output in opsets 10–21 and the scale from 23: only x's constraint means one thing throughout.
  typeConstraints: { T1: ['float32', 'float16', 'bfloat16', 'int32'] },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const scaleT = ctx.input(1);
    const zpT = ctx.optionalInput(2);
    const attrs = init.attrs;
    const requested = init.opset >= 21 ? attrs.int('output_dtype', 0) : 0;
    const requestedType = requested ? dataTypeFromOnnx(requested) : undefined;
    if (requested && !requestedType) throw new SwitchyardError('UNSUPPORTED', `QuantizeLinear: output_dtype ${requested} is not supported`);
    if (zpT && requestedType && zpT.type !== requestedType) {
      throw new SwitchyardError('INVALID_ARGUMENT', `QuantizeLinear: output_dtype ${requestedType} differs from y_zero_point's type ${zpT.type}`);
    }
    const outType = zpT?.type ?? requestedType ?? 'uint8';
    if (!OUTPUT_TYPES.includes(outType)) throw new SwitchyardError('UNSUPPORTED', `QuantizeLinear: output type ${outType} is not supported`);
    const axis = init.opset >= 13 ? attrs.int('axis', 1) : 1;
    const blockSize = init.opset >= 21 ? blockSizeAttr('QuantizeLinear', attrs.int('block_size', 0)) : 0;
    const precision = init.opset >= 25 ? attrs.int('precision', 0) : 0;
    const precisionType = precision ? dataTypeFromOnnx(precision) : undefined;
    if (precision && precisionType !== 'float32' && precisionType !== 'float16' && precisionType !== 'bfloat16' && precisionType !== 'float64') {
      throw new SwitchyardError('INVALID_ARGUMENT', `QuantizeLinear: precision ${precision} is not a float type`);
    }
    const scale = quantParam('QuantizeLinear', 'y_scale', scaleT, X.dims, axis, blockSize)!;
    const zp = quantParam('QuantizeLinear', 'y_zero_point', zpT, X.dims, axis, blockSize);
    const x = toNumbers(X);
    // An int32 x divides in float32 as the kernel always has (onnxruntime's behaviour).
    const round = rounderFor(precisionType ?? (X.type === 'int32' ? 'float32' : divisionType(X.type, scaleT.type)));
    const y = ctx.output(0, outType, X.dims);
    const range = INTEGER_RANGES[outType];
    if (range) {
      const out = y.data as Uint8Array | Int8Array | Uint16Array | Int16Array;
      for (let i = 0; i < X.size; i++) {
        const z = zp ? zp.values[zp.at(i)] : 0;
        out[i] = saturate(roundHalfEven(round(x[i] / scale.values[scale.at(i)])) + z, range);
      }
      return [y];
    }
    // Float outputs: the zero point takes part only for float4e2m1 (float8 zero points must be 0).
    const addZero = outType === 'float4e2m1' && zp !== undefined;
    const q = new Float32Array(X.size);
    for (let i = 0; i < X.size; i++) {
      const v = round(x[i] / scale.values[scale.at(i)]);
      q[i] = addZero ? v + zp.values[zp.at(i)] : v;
    }
    writeNumbers(y, q, { saturate: !isSmallFloatType(outType) || attrs.int('saturate', 1) !== 0 });
    return [y];
  }),
});
