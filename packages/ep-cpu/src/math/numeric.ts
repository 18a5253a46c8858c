/**
 * Reading and writing tensor data as plain JS numbers, the form the math kernels compute in.
 *
 * float16/bfloat16 are widened to Float32Array. int64/uint64 are read into a Float64Array only when
 * every value is exactly representable (|v| < 2^53); callers fall back to BigInt arithmetic otherwise.
 * The int64 reads and writes go through 32-bit views of the buffer, because a BigInt per element
 * costs far more than the arithmetic it wraps.
 */
import {
  SwitchyardError,
  bfloat16BitsToFloat32,
  float16ToFloat32Array,
  float32ToBfloat16Bits,
  float32ToFloat16Array,
  float32ToFloat16Bits,
  isSmallFloatType,
  isSubByteIntType,
  numbersToSmallFloats,
  smallFloatsToFloat32,
  type DataType,
  type E8M0RoundMode,
  type Tensor,
} from '@switchyard/core';

/** Arrays of JS numbers the kernels index directly. */
export type NumberArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array;

const TWO_32 = 4294967296;
/** The 32-bit halves trick assumes little-endian memory, as on every platform Node ships for. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function isFloatType(type: DataType): boolean {
  return type === 'float32' || type === 'float64' || type === 'float16' || type === 'bfloat16';
}

export function is64BitInt(type: DataType): boolean {
  return type === 'int64' || type === 'uint64';
}

/** float16/bfloat16 bits → Float32Array. */
export function widenHalf(type: 'float16' | 'bfloat16', bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  if (type === 'float16') float16ToFloat32Array(bits, out);
  else for (let i = 0; i < bits.length; i++) out[i] = bfloat16BitsToFloat32(bits[i]);
  return out;
}

/** Numbers → float16/bfloat16 bits, into `out`. */
export function narrowHalf(type: 'float16' | 'bfloat16', values: ArrayLike<number>, out: Uint16Array): void {
  if (type === 'float16' && values instanceof Float32Array && values.length === out.length) return float32ToFloat16Array(values, out);
  const conv = type === 'float16' ? float32ToFloat16Bits : float32ToBfloat16Bits;
  for (let i = 0; i < out.length; i++) out[i] = conv(values[i]);
}

/**
 * int64/uint64 → Float64Array when every value is exact as a double, else undefined.
 */
export function int64ToNumbers(data: BigInt64Array | BigUint64Array): Float64Array | undefined {
  const n = data.length;
  const out = new Float64Array(n);
  if (!LITTLE_ENDIAN) return undefined;
  const lo = new Uint32Array(data.buffer, data.byteOffset, n * 2);
  if (data instanceof BigInt64Array) {
    const hi = new Int32Array(data.buffer, data.byteOffset, n * 2);
    for (let i = 0; i < n; i++) {
      const h = hi[2 * i + 1];
      if (h < -2097152 || h > 2097151) return undefined; // outside ±2^53
      out[i] = h * TWO_32 + lo[2 * i];
    }
  } else {
    for (let i = 0; i < n; i++) {
      const h = lo[2 * i + 1];
      if (h > 2097151) return undefined;
      out[i] = h * TWO_32 + lo[2 * i];
    }
  }
  return out;
}

/** Whether every value lies within ±(2^53 − 1), so its integer part can be written back as int64 exactly. */
export function allSafeIntegers(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    // NaN and ±Infinity fail both comparisons' complement; fractions cannot arise from integer ops we check.
    if (!(v <= 9007199254740991 && v >= -9007199254740991)) return false;
  }
  return true;
}

/** Safe integers → int64/uint64 storage (wrapping negatives into uint64 as two's complement). */
export function numbersToInt64(values: ArrayLike<number>, out: BigInt64Array | BigUint64Array): void {
  const n = out.length;
  if (!LITTLE_ENDIAN) {
    if (out instanceof BigInt64Array) for (let i = 0; i < n; i++) out[i] = BigInt(values[i]);
    else for (let i = 0; i < n; i++) out[i] = BigInt.asUintN(64, BigInt(values[i]));
    return;
  }
  const lo = new Uint32Array(out.buffer, out.byteOffset, n * 2);
  const hi = new Int32Array(out.buffer, out.byteOffset, n * 2);
  for (let i = 0; i < n; i++) {
    const v = Math.trunc(values[i]); // C casts truncate toward zero
    const h = Math.floor(v / TWO_32);
    lo[2 * i] = v - h * TWO_32;
    hi[2 * i + 1] = h;
  }
}

/** Any numeric value → a double with C-like truncation to an int64 (NaN → 0, clamped to the int64 range). */
export function numberToBigInt(v: number): bigint {
  if (Number.isNaN(v)) return 0n;
  if (v >= 9223372036854775807) return 9223372036854775807n;
  if (v <= -9223372036854775808) return -9223372036854775808n;
  return BigInt(Math.trunc(v));
}

/**
 * A tensor's elements as JS numbers, for ops that compute in doubles regardless of input type
 * (Pow's exponent, Cast sources, reductions). int64 beyond 2^53 loses precision here, by design of the caller.
 */
export function toNumbers(t: Tensor): NumberArray {
  const d = t.data;
  if (isSmallFloatType(t.type)) {
    const out = new Float32Array(t.size);
    smallFloatsToFloat32(t.type, d as Uint8Array, out);
    return out;
  }
  switch (t.type) {
    case 'float16':
    case 'bfloat16':
      return widenHalf(t.type, d as Uint16Array);
    case 'int64':
    case 'uint64': {
      const exact = int64ToNumbers(d as BigInt64Array | BigUint64Array);
      if (exact) return exact;
      const src = d as BigInt64Array | BigUint64Array;
      const out = new Float64Array(src.length);
      for (let i = 0; i < src.length; i++) out[i] = Number(src[i]);
      return out;
    }
    case 'string':
    case 'complex64':
    case 'complex128':
      throw new SwitchyardError('UNSUPPORTED', `math kernels do not compute on '${t.type}' tensors`);
    default:
      return d as NumberArray;
  }
}

/** How narrowing into the small float types treats overflow (Cast's `saturate`, `round_mode`). */
export interface NarrowingOptions {
  saturate?: boolean;
  e8m0Mode?: E8M0RoundMode;
}

/** Truncates toward zero and wraps into `bits` bits (signed or not), as a C cast to a narrow integer would; NaN → 0. */
function wrapIntoBits(values: ArrayLike<number>, out: Uint8Array | Int8Array, bits: number, signed: boolean): void {
  const modulus = 2 ** bits;
  for (let i = 0; i < out.length; i++) {
    const v = values[i];
    const t = Number.isFinite(v) ? Math.trunc(v) : 0;
    let w = ((t % modulus) + modulus) % modulus;
    if (signed && w >= modulus / 2) w -= modulus;
    out[i] = w;
  }
}

/** Writes computed numbers into a tensor of any numeric type (narrowing, truncating and wrapping like C casts). */
export function writeNumbers(out: Tensor, values: ArrayLike<number>, narrowing: NarrowingOptions = {}): void {
  const d = out.data;
  if (isSmallFloatType(out.type)) {
    numbersToSmallFloats(out.type, values, d as Uint8Array, narrowing.saturate ?? true, narrowing.e8m0Mode ?? 'up');
    return;
  }
  if (isSubByteIntType(out.type)) {
    wrapIntoBits(values, d as Uint8Array | Int8Array, out.type.endsWith('4') ? 4 : 2, out.type.startsWith('int'));
    return;
  }
  switch (out.type) {
    case 'float16':
    case 'bfloat16':
      narrowHalf(out.type, values, d as Uint16Array);
      return;
    case 'int64':
    case 'uint64': {
      const dst = d as BigInt64Array | BigUint64Array;
      if (values instanceof Float64Array && allSafeIntegers(values)) {
        numbersToInt64(values, dst);
        return;
      }
      if (dst instanceof BigInt64Array) for (let i = 0; i < dst.length; i++) dst[i] = numberToBigInt(values[i]);
      else for (let i = 0; i < dst.length; i++) dst[i] = BigInt.asUintN(64, numberToBigInt(values[i]));
      return;
    }
    case 'bool': {
      const dst = d as Uint8Array;
      for (let i = 0; i < dst.length; i++) dst[i] = values[i] !== 0 ? 1 : 0;
      return;
    }
    case 'string':
    case 'complex64':
    case 'complex128':
      throw new SwitchyardError('UNSUPPORTED', `math kernels do not write '${out.type}' tensors`);
    default:
      (d as NumberArray).set(values as ArrayLike<number>);
  }
}
