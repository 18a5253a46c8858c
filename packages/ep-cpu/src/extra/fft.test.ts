/**
 * dft() against the O(n²) definition for every length 1…40 and a few larger ones (powers of two go
 * radix-2, the rest Bluestein), forward and inverse, with plans reused, interleaved and evicted.
 */
import { describe, expect, it } from 'vitest';
import { dft } from './fft.js';

function naive(re: Float64Array, im: Float64Array, inverse: boolean): [Float64Array, Float64Array] {
  const n = re.length;
  const sign = inverse ? 1 : -1;
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < n; j++) {
      const angle = (sign * 2 * Math.PI * ((j * k) % n)) / n;
      outRe[k] += re[j] * Math.cos(angle) - im[j] * Math.sin(angle);
      outIm[k] += re[j] * Math.sin(angle) + im[j] * Math.cos(angle);
    }
    if (inverse) {
      outRe[k] /= n;
      outIm[k] /= n;
    }
  }
  return [outRe, outIm];
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5);
}

function check(n: number, inverse: boolean, rand: () => number): void {
  const re = Float64Array.from({ length: n }, rand);
  const im = Float64Array.from({ length: n }, rand);
  const [wantRe, wantIm] = naive(re, im, inverse);
  dft(re, im, inverse);
  const tol = 1e-12 * n;
  for (let k = 0; k < n; k++) {
    expect(Math.abs(re[k] - wantRe[k])).toBeLessThan(tol);
    expect(Math.abs(im[k] - wantIm[k])).toBeLessThan(tol);
  }
}

describe('dft', () => {
  it('matches the definition for lengths 1…40 and 97, 128, 360, 512, both directions', () => {
    const rand = random(1);
    for (const n of [...Array.from({ length: 40 }, (_, i) => i + 1), 97, 128, 360, 512]) {
      check(n, false, rand);
      check(n, true, rand);
    }
  });

  it('gives the same answer when its plans are reused, interleaved and evicted', () => {
    const rand = random(2);
    for (let round = 0; round < 2; round++) {
      for (const n of [12, 16, 12, 16]) check(n, round === 1, rand);
    }
    // More distinct lengths than the plan caches hold, then the first ones again.
    for (let n = 41; n < 41 + 80; n++) check(n, false, rand);
    for (const n of [12, 16, 41]) check(n, false, rand);
  });
});
