/** Helpers for the quantized ops: round-half-to-even, saturation, per-tensor/per-axis parameters. */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { normalizeAxis } from './float-io.js';

/** Rounds to the nearest integer, ties to even (as numpy and onnxruntime do). */
export function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const diff = v - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

export type QuantType = 'uint8' | 'int8';

export function quantRange(type: string): [number, number] {
  if (type === 'uint8') return [0, 255];
  if (type === 'int8') return [-128, 127];
  if (type === 'int32') return [-2147483648, 2147483647];
  throw new SwitchyardError('INVALID_ARGUMENT', `quantized type ${type} is not supported (uint8, int8)`);
}

export function saturate(v: number, [lo, hi]: [number, number]): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** Integer tensor data as numbers (int8/uint8/int32 arrays index as numbers already). */
export function intData(t: Tensor, what: string): ArrayLike<number> {
  if (t.type === 'int8' || t.type === 'uint8' || t.type === 'int32' || t.type === 'uint16' || t.type === 'int16') return t.data as ArrayLike<number>;
  throw new SwitchyardError('INVALID_ARGUMENT', `${what}: expected an integer tensor, got ${t.type}`);
}

/**
 * A per-tensor (one value) or per-axis (a 1-D tensor along `axis` of `dims`) parameter: returns a
 * function from a flat element index to the parameter index, and the parameter values. `axis` may be
 * negative and is only checked when the parameter is per-axis.
 */
export function axisParam(op: string, what: string, param: Tensor | undefined, dims: readonly number[], rawAxis: number): { values: ArrayLike<number>; at: (flat: number) => number } | undefined {
  if (!param) return undefined;
  const values = param.type === 'float32' || param.type === 'float64' ? (param.data as ArrayLike<number>) : param.type === 'int64' ? Array.from(param.data as BigInt64Array, Number) : (param.data as ArrayLike<number>);
  if (param.size === 1 && param.dims.length <= 1) return { values, at: () => 0 };
  const axis = normalizeAxis(rawAxis, dims.length, op);
  if (param.dims.length !== 1 || param.size !== dims[axis]) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must be a scalar or a 1-D tensor of ${dims[axis]} (axis ${axis}), got [${param.dims.join(', ')}]`);
  }
  let inner = 1;
  for (let i = axis + 1; i < dims.length; i++) inner *= dims[i];
  const n = dims[axis];
  return { values, at: (flat) => Math.floor(flat / inner) % n };
}

/**
 * DynamicQuantizeLinear's arithmetic: `out` = uint8 quantization of `x` with the scale and zero point chosen
 * from x's range (including 0), every step in float32 as the spec computes it. NaNs are skipped by the
 * range and quantize to 0; an all-zero range gives scale 0 and zero point 0.
 */
export function dynamicQuantize(x: ArrayLike<number>, out: Uint8Array): { scale: number; zeroPoint: number } {
  let min = 0;
  let max = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
  }
  const range: [number, number] = [0, 255];
  // (max - min) rounds to float32 before the division, as in the spec's reference and onnxruntime.
  const scale = Math.fround(Math.fround(max - min) / 255);
  const zeroPoint = scale === 0 ? 0 : saturate(roundHalfEven(Math.fround(-min / scale)), range);
  for (let i = 0; i < x.length; i++) out[i] = scale === 0 ? zeroPoint : saturate(roundHalfEven(Math.fround(x[i] / scale)) + zeroPoint, range);
  return { scale, zeroPoint };
}
