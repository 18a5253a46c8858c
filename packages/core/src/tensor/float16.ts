/** Conversions between float32 and the 16-bit float formats stored as raw bits. */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → IEEE binary16 bits, round to nearest even. */
export function float32ToFloat16Bits(value: number): number {
  f32[0] = value;
  return float32BitsToFloat16Bits(u32[0]);
}

/** The bits of a float32 → IEEE binary16 bits, round to nearest even. */
function float32BitsToFloat16Bits(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const magnitude = x & 0x7fffffff;
  // 2^-14 ≤ |v| < 2^16, the common case: rebias the exponent (127 → 15) and round the 13 dropped
  // mantissa bits to nearest even in one add; a carry out of the mantissa bumps the exponent, up
  // to 0x7c00 (Inf) from 65520 on, as rounding to nearest even requires.
  if (magnitude >= 0x38800000 && magnitude < 0x47800000) {
    const rebiased = magnitude - 0x38000000;
    return sign | ((rebiased + 0xfff + ((rebiased >>> 13) & 1)) >>> 13);
  }
  const exp = magnitude >>> 23;
  let mant = magnitude & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  // Below 2^-14: a subnormal float16, or zero.
  if (e < -10) return sign;
  mant |= 0x800000;
  const shift = 14 - e;
  let half = mant >>> shift;
  const rem = mant & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  if (rem > halfway || (rem === halfway && half & 1)) half++;
  return sign | half;
}

/**
 * Every float16's float32 value (256 KiB), built on first use: widening a tensor is then one load
 * per element instead of a decode with a power of two (measured 250 → a few ns per element).
 */
let float16Values: Float32Array | undefined;

function float16Table(): Float32Array {
  if (!float16Values) {
    const table = new Float32Array(65536);
    for (let b = 0; b < 65536; b++) table[b] = decodeFloat16(b);
    float16Values = table;
  }
  return float16Values;
}

/** IEEE binary16 bits → float32 value. */
export function float16BitsToFloat32(bits: number): number {
  return (float16Values ?? float16Table())[bits & 0xffff];
}

/** float16 bits → float32 values into `out` (as long as `bits`): for whole tensors. */
export function float16ToFloat32Array(bits: Uint16Array, out: Float32Array): void {
  const table = float16Values ?? float16Table();
  for (let i = 0; i < bits.length; i++) out[i] = table[bits[i]];
}

/** float32 values → float16 bits (round to nearest even) into `out` (as long as `values`). */
export function float32ToFloat16Array(values: Float32Array, out: Uint16Array): void {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < words.length; i++) out[i] = float32BitsToFloat16Bits(words[i]);
}

function decodeFloat16(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** float32 → bfloat16 bits, round to nearest even. */
export function float32ToBfloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0];
  if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) return (x >>> 16) | 0x40; // keep NaN quiet
  const rounding = 0x7fff + ((x >>> 16) & 1);
  return ((x + rounding) >>> 16) & 0xffff;
}

/** bfloat16 bits → float32 value. */
export function bfloat16BitsToFloat32(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0];
}
