/**
 * float16 conversions checked against a plain rounding rule: the nearest of the float16 values
 * bracketing v (found through float16BitsToFloat32's table, built from a separate decode), ties to
 * the even one; |v| ≥ 65520 goes to ±Inf as IEEE's round-to-nearest-even does.
 */
import { describe, expect, it } from 'vitest';
import { float16BitsToFloat32, float16ToFloat32Array, float32ToFloat16Array, float32ToFloat16Bits } from './float16.js';

/** The float16 value of bits, decoded from the fields (independent of the table). */
function decode(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Round-to-nearest-even by search over the positive float16 values (bits 0 … 0x7c00). */
function nearestFloat16(v: number): number {
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a >= 65520) return sign | 0x7c00;
  let lo = 0;
  let hi = 0x7bff;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (decode(mid) <= a) lo = mid;
    else hi = mid - 1;
  }
  if (decode(lo) === a || lo === 0x7bff) return sign | lo;
  const below = a - decode(lo);
  const above = decode(lo + 1) - a;
  return sign | (below < above || (below === above && (lo & 1) === 0) ? lo : lo + 1);
}

/** float32 values around every float16: the value, the midpoints to its neighbours, and 1 float32 ulp either side. */
function probes(): Float32Array {
  const out: number[] = [];
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const step = (v: number, d: number) => {
    f[0] = v;
    u[0] += v >= 0 ? d : -d;
    return f[0];
  };
  for (let b = 0; b < 0x7c00; b++) {
    const v = decode(b);
    const mid = (v + decode(b + 1)) / 2;
    for (const p of [v, mid, step(mid, 1), step(mid, -1)]) out.push(p, -p);
  }
  out.push(65504, 65519.99, 65520, 70000, 1e-8, 2 ** -25, 2 ** -25 * 1.0001, 2 ** -24 * 1.5, Infinity, -Infinity, 0, -0);
  return Float32Array.from(out);
}

describe('float16 conversions', () => {
  it('widens every float16 exactly', () => {
    const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const out = new Float32Array(65536);
    float16ToFloat32Array(bits, out);
    for (let b = 0; b < 65536; b++) {
      const want = decode(b);
      if (Number.isNaN(want)) expect(out[b]).toBeNaN();
      else expect(Object.is(out[b], Math.fround(want)) || out[b] === want, `bits ${b.toString(16)}`).toBe(true);
      expect(Object.is(float16BitsToFloat32(b), out[b]) || (Number.isNaN(out[b]) && Number.isNaN(float16BitsToFloat32(b)))).toBe(true);
    }
  });

  it('rounds float32 to the nearest float16, ties to even, past 65520 to Inf, NaN to NaN', () => {
    const values = probes();
    const out = new Uint16Array(values.length);
    float32ToFloat16Array(values, out);
    for (let i = 0; i < values.length; i++) {
      if (Number.isNaN(values[i])) {
        expect((out[i] & 0x7c00) === 0x7c00 && (out[i] & 0x3ff) !== 0, `NaN → ${out[i].toString(16)}`).toBe(true);
        continue;
      }
      const want = nearestFloat16(values[i]);
      if (out[i] !== want) throw new Error(`${values[i]}: got ${out[i].toString(16)}, want ${want.toString(16)}`);
      expect(float32ToFloat16Bits(values[i])).toBe(out[i]);
    }
    expect(float32ToFloat16Bits(NaN) & 0x7c00).toBe(0x7c00);
    expect(float32ToFloat16Bits(NaN) & 0x3ff).not.toBe(0);
  });

  it('round-trips every finite float16 through float32', () => {
    const bits = Uint16Array.from({ length: 65536 }, (_, i) => i).filter((b) => (b & 0x7c00) !== 0x7c00);
    const wide = new Float32Array(bits.length);
    float16ToFloat32Array(bits, wide);
    const back = new Uint16Array(bits.length);
    float32ToFloat16Array(wide, back);
    expect(back).toEqual(bits);
  });
});
