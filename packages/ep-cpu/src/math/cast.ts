/**
 * Element conversion between any two of the numeric, bool and string types, with C-cast semantics
 * (floats truncate toward zero, integers wrap, anything non-zero is true) as ONNX Runtime behaves.
 */
import { SwitchyardError, float16ToFloat32Array, float32ToFloat16Array, type Tensor } from '@switchyard/core';
import { numberToBigInt, toNumbers, writeNumbers, type NarrowingOptions, type NumberArray } from './numeric.js';

/** Shortest decimal that reads back as the same float32 (numpy's `str(np.float32(v))` digits). */
function float32ToString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'INF' : '-INF';
  for (let p = 1; p < 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s);
  }
  return String(Number(v.toPrecision(9)));
}

function numberToString(v: number, float32: boolean): string {
  if (float32) return float32ToString(v);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'INF' : '-INF';
  return String(v);
}

/** Parses a decimal string as ONNX Runtime does for Cast: `INF`/`inf`/`+INF`, `NaN`, or a number. */
export function parseNumber(s: string): number {
  const t = s.trim();
  const lower = t.toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (lower === 'nan' || lower === '+nan' || lower === '-nan') return NaN;
  const v = t === '' ? NaN : Number(t);
  if (Number.isNaN(v)) throw new SwitchyardError('INVALID_ARGUMENT', `Cast: '${s}' is not a number`);
  return v;
}

const INT_LITERAL = /^[+-]?\d+$/;

function stringsToTensor(src: readonly string[], dst: Tensor): void {
  const d = dst.data;
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) {
    // Integer literals go through BigInt so 64-bit values survive; anything else parses as a double.
    for (let i = 0; i < src.length; i++) {
      const t = src[i].trim();
      const big = INT_LITERAL.test(t) ? BigInt(t) : numberToBigInt(parseNumber(t));
      d[i] = d instanceof BigInt64Array ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big);
    }
    return;
  }
  const values = new Float64Array(src.length);
  for (let i = 0; i < src.length; i++) values[i] = parseNumber(src[i]);
  writeNumbers(dst, values);
}

function tensorToStrings(src: Tensor, dst: string[]): void {
  const d = src.data;
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) {
    for (let i = 0; i < d.length; i++) dst[i] = d[i].toString();
    return;
  }
  const values = toNumbers(src);
  const f32 = src.type === 'float32' || src.type === 'float16' || src.type === 'bfloat16';
  for (let i = 0; i < values.length; i++) dst[i] = numberToString(values[i], f32);
}

/** int64/uint64 → a type of ≤ 32 bits: wrap through BigInt so values past 2^53 keep their low bits. */
function wrapInt64Into(src: BigInt64Array | BigUint64Array, dst: NumberArray): void {
  for (let i = 0; i < src.length; i++) dst[i] = Number(BigInt.asIntN(32, src[i]));
}

/**
 * Converts every element of `src` into `dst` (same element count; dst's type is the target).
 * `narrowing` applies to the float8/float4 targets (Cast's `saturate` and `round_mode`).
 */
export function castInto(src: Tensor, dst: Tensor, narrowing: NarrowingOptions = {}): void {
  if (src.size !== dst.size) throw new SwitchyardError('INVALID_SHAPE', `Cast: ${src.size} elements into ${dst.size}`);
  const s = src.data;
  const d = dst.data;
  const complex = (t: string) => t === 'complex64' || t === 'complex128';
  if (complex(src.type) || complex(dst.type)) {
    throw new SwitchyardError('UNSUPPORTED', `Cast: ${src.type} → ${dst.type} is not supported`);
  }
  if (src.type === dst.type) {
    if (Array.isArray(s)) (d as string[]).splice(0, s.length, ...(s as string[]));
    else (d as Uint8Array).set(s as Uint8Array);
    return;
  }
  // The float16 <-> float32 pair float16 models cast between most: straight through, no Float64 copy.
  if (src.type === 'float16' && d instanceof Float32Array) return float16ToFloat32Array(s as Uint16Array, d);
  if (s instanceof Float32Array && dst.type === 'float16') return float32ToFloat16Array(s, d as Uint16Array);
  if (src.type === 'string') return stringsToTensor(s as string[], dst);
  if (dst.type === 'string') return tensorToStrings(src, d as string[]);
  if ((s instanceof BigInt64Array || s instanceof BigUint64Array) && (d instanceof BigInt64Array || d instanceof BigUint64Array)) {
    d.set(s); // BigInt typed arrays wrap modulo 2^64 on store
    return;
  }
  if (s instanceof BigInt64Array || s instanceof BigUint64Array) {
    const exact = toNumbers(src);
    const narrowInt = ['int8', 'int16', 'int32', 'uint8', 'uint16', 'uint32', 'int4', 'uint4', 'int2', 'uint2'].includes(dst.type);
    if (narrowInt && !(exact instanceof Float64Array && exact.every((v) => Math.abs(v) <= Number.MAX_SAFE_INTEGER))) {
      // The low 32 bits keep every bit a narrower integer needs; wrapping them again narrows further.
      const low = new Int32Array(s.length);
      wrapInt64Into(s, low);
      return writeNumbers(dst, low);
    }
    return writeNumbers(dst, exact, narrowing);
  }
  writeNumbers(dst, toNumbers(src), narrowing);
}
