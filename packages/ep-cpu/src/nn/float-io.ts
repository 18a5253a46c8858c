/**
 * Float tensor access for nn kernels: float32/float64 are used in place; float16/bfloat16 are widened
 * to float32 for computing and narrowed again when the output is committed.
 */
import {
  SwitchyardError,
  bfloat16BitsToFloat32,
  float16ToFloat32Array,
  float32ToBfloat16Bits,
  float32ToFloat16Array,
  elementCount,
  type DataType,
  type KernelRunContext,
  type Tensor,
} from '@switchyard/core';

export type FloatArray = Float32Array | Float64Array;

/** The float types nn kernels serve. */
export const FLOAT_KERNEL_TYPES = ['float32', 'float64', 'float16'] as const satisfies readonly DataType[];

/** The tensor's elements as a float array (no copy for float32/float64). */
export function floatData(t: Tensor, what = 'input'): FloatArray {
  const d = t.data;
  if (t.type === 'float32' || t.type === 'float64') return d as FloatArray;
  if (t.type === 'float16' || t.type === 'bfloat16') {
    const bits = d as Uint16Array;
    const out = new Float32Array(bits.length);
    if (t.type === 'float16') float16ToFloat32Array(bits, out);
    else for (let i = 0; i < bits.length; i++) out[i] = bfloat16BitsToFloat32(bits[i]);
    return out;
  }
  throw new SwitchyardError('INVALID_ARGUMENT', `${what}: expected a float tensor, got ${t.type}`);
}

/** An output being computed as floats; `commit()` yields the tensor in the requested type. */
export interface FloatOutput {
  readonly data: FloatArray;
  commit(): Tensor;
}

/** Allocates output `i` for computing in floats. */
export function floatOutput(ctx: KernelRunContext, i: number, type: DataType, dims: readonly number[]): FloatOutput {
  if (type === 'float32' || type === 'float64') {
    const t = ctx.output(i, type, dims);
    return { data: t.data as FloatArray, commit: () => t };
  }
  if (type !== 'float16' && type !== 'bfloat16') {
    throw new SwitchyardError('INVALID_ARGUMENT', `${ctx.node.opType}: output type ${type} is not a float type`);
  }
  const data = new Float32Array(elementCount(dims));
  return {
    data,
    commit() {
      const t = ctx.output(i, type, dims);
      const bits = t.data as Uint16Array;
      if (type === 'float16') float32ToFloat16Array(data, bits);
      else for (let k = 0; k < data.length; k++) bits[k] = float32ToBfloat16Bits(data[k]);
      return t;
    },
  };
}

/** A scratch array of the same float precision as `like`. */
export function scratchLike(like: FloatArray, length: number): FloatArray {
  return like instanceof Float64Array ? new Float64Array(length) : new Float32Array(length);
}

/** Normalizes a possibly negative axis against `rank`, with a clear error when out of range. */
export function normalizeAxis(axis: number, rank: number, op: string): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= Math.max(rank, 1)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `${op}: axis ${axis} is out of range for rank ${rank}`);
  }
  return a;
}
