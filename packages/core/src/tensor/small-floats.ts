/**
 * The 8-bit and 4-bit float formats ONNX defines, held as one code (bit pattern) per element, and
 * their conversions to and from JS numbers as ONNX's Cast specifies them:
 *
 * - float8e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; NaN is S.1111.111, no infinities.
 * - float8e4m3fnuz: bias 8; the one NaN is 0x80 (the "negative zero" code), no infinities, no −0.
 * - float8e5m2: IEEE-like (bias 15, infinities and NaNs in the top exponent).
 * - float8e5m2fnuz: bias 16; the one NaN is 0x80, no infinities, no −0.
 * - float4e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; values 0, 0.5, 1, 1.5, 2, 3, 4, 6; no NaN or Inf.
 * - float8e8m0: exponent only, 2^(code − 127); 0xFF is NaN; no sign, no zero.
 *
 * Narrowing rounds to nearest even. With `saturate` (Cast's default), values past the largest finite
 * value, infinities included, become ±max; without it they become Inf where the format has one
 * (e5m2) and NaN otherwise. float4e2m1 always saturates (it has neither) and float8e8m0 follows
 * onnx.numpy_helper.to_float8e8m0 (rounding on the float32 exponent, mode 'up' by default).
 */
import type { SmallFloatType } from './data-type.js';

interface MiniFloat {
  expBits: number;
  mantBits: number;
  bias: number;
  /** Largest finite value. */
  max: number;
  /** Code of the largest finite value (positive). */
  maxCode: number;
  /** No negative zero and a single NaN at 0x80. */
  fnuz: boolean;
  /** Infinity code (positive), when the format has one. */
  infCode?: number;
}

const E4M3FN: MiniFloat = { expBits: 4, mantBits: 3, bias: 7, max: 448, maxCode: 0x7e, fnuz: false };
const E4M3FNUZ: MiniFloat = { expBits: 4, mantBits: 3, bias: 8, max: 240, maxCode: 0x7f, fnuz: true };
const E5M2: MiniFloat = { expBits: 5, mantBits: 2, bias: 15, max: 57344, maxCode: 0x7b, fnuz: false, infCode: 0x7c };
const E5M2FNUZ: MiniFloat = { expBits: 5, mantBits: 2, bias: 16, max: 57344, maxCode: 0x7f, fnuz: true };
const E2M1: MiniFloat = { expBits: 2, mantBits: 1, bias: 1, max: 6, maxCode: 0x7, fnuz: false };

const FORMATS: Record<Exclude<SmallFloatType, 'float8e8m0'>, MiniFloat> = {
  float8e4m3fn: E4M3FN,
  float8e4m3fnuz: E4M3FNUZ,
  float8e5m2: E5M2,
  float8e5m2fnuz: E5M2FNUZ,
  float4e2m1: E2M1,
};

function signBit(f: MiniFloat): number {
  return 1 << (f.expBits + f.mantBits);
}

function decodeMini(code: number, f: MiniFloat): number {
  const sign = code & signBit(f) ? -1 : 1;
  const e = (code >>> f.mantBits) & ((1 << f.expBits) - 1);
  const m = code & ((1 << f.mantBits) - 1);
  if (f.fnuz && code === 0x80) return NaN;
  if (f === E4M3FN && (code & 0x7f) === 0x7f) return NaN;
  if (f.infCode !== undefined && e === (1 << f.expBits) - 1) return m === 0 ? sign * Infinity : NaN;
  if (e === 0) return sign * m * 2 ** (1 - f.bias - f.mantBits);
  return sign * (1 + m / (1 << f.mantBits)) * 2 ** (e - f.bias);
}

function decodeE8M0(code: number): number {
  return code === 0xff ? NaN : 2 ** (code - 127);
}

/** Every code's value per format, built on first use (256 entries; float4e2m1 uses 16). */
const TABLES = new Map<SmallFloatType, Float32Array>();

/** The value of each code of `type` (index by code). */
export function smallFloatTable(type: SmallFloatType): Float32Array {
  let t = TABLES.get(type);
  if (!t) {
    t = new Float32Array(type === 'float4e2m1' ? 16 : 256);
    for (let c = 0; c < t.length; c++) t[c] = type === 'float8e8m0' ? decodeE8M0(c) : decodeMini(c, FORMATS[type]);
    TABLES.set(type, t);
  }
  return t;
}

/** The value of one code of `type`. */
export function smallFloatToNumber(type: SmallFloatType, code: number): number {
  return smallFloatTable(type)[code];
}

/** Rounds a finite non-negative `a` to `f`'s precision, nearest even; returns the (possibly over-max) magnitude. */
function roundToFormat(a: number, f: MiniFloat): number {
  const minNormalExp = 1 - f.bias;
  const exp = a === 0 ? minNormalExp : Math.max(Math.floor(Math.log2(a)), minNormalExp);
  // log2 may be off by one near powers of two; fix the exponent so 2^exp ≤ a < 2^(exp+1) (or subnormal).
  let e = exp;
  if (e > minNormalExp && 2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const quantum = 2 ** (e - f.mantBits);
  const scaled = a / quantum; // exact: dividing by a power of two
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const steps = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return steps * quantum;
}

/** The code of a magnitude already rounded to the format and within its range (sign not included). */
function encodeMagnitude(r: number, f: MiniFloat): number {
  if (r === 0) return 0;
  const minNormal = 2 ** (1 - f.bias);
  if (r < minNormal) return Math.round(r / 2 ** (1 - f.bias - f.mantBits)); // subnormal: exact integer
  const e = Math.floor(Math.log2(r));
  const exp = 2 ** e > r ? e - 1 : 2 ** (e + 1) <= r ? e + 1 : e;
  const mant = Math.round((r / 2 ** exp - 1) * (1 << f.mantBits));
  return ((exp + f.bias) << f.mantBits) | mant;
}

/**
 * The code of `v` in `type`. `negative` gives the sign of a NaN (JS numbers do not carry it reliably;
 * ml_dtypes keeps it for e4m3fn and e5m2). For float8e8m0 use `float32ToE8M0`.
 */
export function numberToSmallFloat(type: Exclude<SmallFloatType, 'float8e8m0'>, v: number, saturate = true, nanNegative = false): number {
  const f = FORMATS[type];
  const sign = signBit(f);
  if (Number.isNaN(v)) {
    if (f.fnuz) return 0x80;
    if (f === E4M3FN) return nanNegative ? 0xff : 0x7f;
    if (f === E5M2) return nanNegative ? 0xfe : 0x7e;
    return nanNegative ? 0 : sign; // float4e2m1 has no NaN: ml_dtypes yields a zero with the sign flipped
  }
  const negative = v < 0 || Object.is(v, -0);
  const s = negative ? sign : 0;
  const a = Math.abs(v);
  const saturating = saturate || type === 'float4e2m1';
  if (a === Infinity) {
    if (saturating) return s | f.maxCode;
    return f.infCode !== undefined ? s | f.infCode : f.fnuz ? 0x80 : s | 0x7f;
  }
  const r = roundToFormat(a, f);
  if (r > f.max) {
    if (saturating) return s | f.maxCode;
    return f.infCode !== undefined ? s | f.infCode : f.fnuz ? 0x80 : s | 0x7f;
  }
  const code = encodeMagnitude(r, f);
  if (code === 0 && f.fnuz) return 0; // no negative zero
  return s | code;
}

export type E8M0RoundMode = 'up' | 'nearest' | 'down';

/**
 * float32 → float8e8m0 code, as onnx.numpy_helper.to_float8e8m0: the float32's biased exponent,
 * rounded by its mantissa per `mode`; NaN and Inf become 0xFF; the sign is ignored. With `saturate`,
 * rounding never carries past 0xFE.
 */
export function float32ToE8M0(v: number, saturate = true, mode: E8M0RoundMode = 'up'): number {
  F32[0] = v;
  const bits = U32[0];
  const exponent = (bits >>> 23) & 0xff;
  if (exponent === 0xff) return 0xff;
  let up = false;
  if (mode === 'up') up = (bits & 0x7fffff) !== 0;
  else if (mode === 'nearest') {
    const g = (bits & 0x400000) !== 0;
    const r = (bits & 0x200000) !== 0;
    const st = (bits & 0x1fffff) !== 0;
    up = g && (r || st || exponent > 0);
  }
  if (up && saturate && exponent === 0xfe) up = false;
  return (exponent + (up ? 1 : 0)) & 0xff;
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Codes → float32 values, for whole tensors. */
export function smallFloatsToFloat32(type: SmallFloatType, codes: ArrayLike<number>, out: Float32Array): void {
  const table = smallFloatTable(type);
  for (let i = 0; i < out.length; i++) out[i] = table[codes[i]];
}

/**
 * Numbers → codes, for whole tensors. A Float32Array source keeps each NaN's sign (read from its bits).
 */
export function numbersToSmallFloats(
  type: SmallFloatType,
  values: ArrayLike<number>,
  out: Uint8Array,
  saturate = true,
  e8m0Mode: E8M0RoundMode = 'up',
): void {
  if (type === 'float8e8m0') {
    for (let i = 0; i < out.length; i++) out[i] = float32ToE8M0(values[i], saturate, e8m0Mode);
    return;
  }
  const bits = values instanceof Float32Array ? new Uint32Array(values.buffer, values.byteOffset, values.length) : undefined;
  for (let i = 0; i < out.length; i++) {
    const v = values[i];
    const nanNegative = bits !== undefined && v !== v && bits[i] >>> 31 === 1;
    out[i] = numberToSmallFloat(type, v, saturate, nanNegative);
  }
}
