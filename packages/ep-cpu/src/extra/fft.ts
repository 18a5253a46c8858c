/**
 * Complex discrete Fourier transform of any length, in doubles: iterative radix-2 Cooley–Tukey for
 * powers of two, Bluestein's chirp-z (a power-of-two convolution) for every other length, so all
 * lengths cost O(n log n).
 */

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

/** In-place radix-2 FFT; `sign` −1 for the forward transform (e^{−2πi jk/n}), +1 for the unscaled inverse. */
function radix2(re: Float64Array, im: Float64Array, sign: number): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = (sign * 2 * Math.PI) / len;
    for (let k = 0; k < half; k++) {
      // Twiddles computed directly (not by recurrence) so rounding does not accumulate along the stage.
      const wr = Math.cos(step * k);
      const wi = Math.sin(step * k);
      for (let s = 0; s < n; s += len) {
        const a = s + k;
        const b = a + half;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

/** Bluestein: X_k = w_k Σ_j (x_j w_j) conj(w_{k−j}), w_k = e^{sign·iπk²/n}, the sum a convolution done by radix-2 FFTs. */
function bluestein(re: Float64Array, im: Float64Array, sign: number): void {
  const n = re.length;
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  const cr = new Float64Array(n);
  const ci = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // k² mod 2n keeps the angle small, so large k does not lose precision.
    const angle = (sign * Math.PI * ((k * k) % (2 * n))) / n;
    cr[k] = Math.cos(angle);
    ci[k] = Math.sin(angle);
  }
  const ar = new Float64Array(m);
  const ai = new Float64Array(m);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k] * cr[k] - im[k] * ci[k];
    ai[k] = re[k] * ci[k] + im[k] * cr[k];
  }
  const br = new Float64Array(m);
  const bi = new Float64Array(m);
  br[0] = cr[0];
  bi[0] = -ci[0];
  for (let k = 1; k < n; k++) {
    br[k] = br[m - k] = cr[k];
    bi[k] = bi[m - k] = -ci[k];
  }
  radix2(ar, ai, -1);
  radix2(br, bi, -1);
  for (let k = 0; k < m; k++) {
    const r = ar[k] * br[k] - ai[k] * bi[k];
    ai[k] = ar[k] * bi[k] + ai[k] * br[k];
    ar[k] = r;
  }
  radix2(ar, ai, 1);
  for (let k = 0; k < n; k++) {
    const r = ar[k] / m;
    const i = ai[k] / m;
    re[k] = r * cr[k] - i * ci[k];
    im[k] = r * ci[k] + i * cr[k];
  }
}

/**
 * In-place DFT of (re, im): forward X_k = Σ_j x_j e^{−2πi jk/n}; inverse X_k = (1/n) Σ_j x_j e^{+2πi jk/n}.
 */
export function dft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  if (n <= 1) return;
  const sign = inverse ? 1 : -1;
  if (isPowerOfTwo(n)) radix2(re, im, sign);
  else bluestein(re, im, sign);
  if (inverse) {
    for (let k = 0; k < n; k++) {
      re[k] /= n;
      im[k] /= n;
    }
  }
}
