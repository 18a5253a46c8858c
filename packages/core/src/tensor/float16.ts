/** Conversions between float32 and the 16-bit float formats stored as raw bits. */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → IEEE binary16 bits, round to nearest even. */
export function float32ToFloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → signed zero
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** IEEE binary16 bits → float32 value. */
export function float16BitsToFloat32(bits: number): number {
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
