/** Seeded test inputs shared by the native kernels' tests (an LCG: the same values on every machine). */

/** `n` values `(u · 2 − 1) · scale + offset` with u uniform in [0, 1): [-1, 1) by default. */
export function seededFloats(n: number, seed: number, scale = 1, offset = 0): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 31 - 1) * scale + offset;
  }
  return out;
}
