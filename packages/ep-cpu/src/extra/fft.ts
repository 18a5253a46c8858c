/**
 * Complex discrete Fourier transform of any length, in doubles: iterative radix-2 Cooley–Tukey for
 * powers of two, Bluestein's chirp-z (a power-of-two convolution) for every other length, so all
 * lengths cost O(n log n). Twiddles, bit-reversal swaps and chirps are planned once per length and
 * direction; every value is computed as before, so results are unchanged.
 */

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

/** Bit-reversal swaps and twiddles of one radix-2 size and direction, built once and reused. */
interface Radix2Plan {
  /** Index pairs (i, j), i < j, to swap into bit-reversed order. */
  swaps: Int32Array;
  /** Stage with half-length h keeps its h twiddles from offset h − 1. */
  cos: Float64Array;
  sin: Float64Array;
}

/** Bluestein's chirp and the radix-2 transform of its conjugate, per length and direction. */
interface BluesteinPlan {
  m: number;
  cr: Float64Array;
  ci: Float64Array;
  br: Float64Array;
  bi: Float64Array;
}

// Signals come in batches of one length (DFT rows, STFT frames): plans make the twiddles and chirps a
// one-time cost. Few distinct sizes occur in a model; the caps only bound a pathological caller.
const MAX_PLANS = 64;
const radix2Plans = new Map<number, Radix2Plan>();
const bluesteinPlans = new Map<number, BluesteinPlan>();

function remember<P>(cache: Map<number, P>, key: number, plan: P): P {
  if (cache.size >= MAX_PLANS) cache.delete(cache.keys().next().value as number);
  cache.set(key, plan);
  return plan;
}

function radix2Plan(n: number, sign: number): Radix2Plan {
  const key = sign * n;
  const cached = radix2Plans.get(key);
  if (cached) return cached;
  const pairs: number[] = [];
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) pairs.push(i, j);
  }
  const cos = new Float64Array(Math.max(n - 1, 0));
  const sin = new Float64Array(Math.max(n - 1, 0));
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = (sign * 2 * Math.PI) / len;
    // Twiddles computed directly (not by recurrence) so rounding does not accumulate along the stage.
    for (let k = 0; k < half; k++) {
      cos[half - 1 + k] = Math.cos(step * k);
      sin[half - 1 + k] = Math.sin(step * k);
    }
  }
  return remember(radix2Plans, key, { swaps: Int32Array.from(pairs), cos, sin });
}

/** In-place radix-2 FFT; `sign` −1 for the forward transform (e^{−2πi jk/n}), +1 for the unscaled inverse. */
function radix2(re: Float64Array, im: Float64Array, sign: number): void {
  const n = re.length;
  const { swaps, cos, sin } = radix2Plan(n, sign);
  for (let p = 0; p < swaps.length; p += 2) {
    const i = swaps[p];
    const j = swaps[p + 1];
    const tr = re[i];
    re[i] = re[j];
    re[j] = tr;
    const ti = im[i];
    im[i] = im[j];
    im[j] = ti;
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    for (let k = 0; k < half; k++) {
      const wr = cos[half - 1 + k];
      const wi = sin[half - 1 + k];
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

function bluesteinPlan(n: number, sign: number): BluesteinPlan {
  const key = sign * n;
  const cached = bluesteinPlans.get(key);
  if (cached) return cached;
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
  const br = new Float64Array(m);
  const bi = new Float64Array(m);
  br[0] = cr[0];
  bi[0] = -ci[0];
  for (let k = 1; k < n; k++) {
    br[k] = br[m - k] = cr[k];
    bi[k] = bi[m - k] = -ci[k];
  }
  radix2(br, bi, -1);
  return remember(bluesteinPlans, key, { m, cr, ci, br, bi });
}

/** Bluestein: X_k = w_k Σ_j (x_j w_j) conj(w_{k−j}), w_k = e^{sign·iπk²/n}, the sum a convolution done by radix-2 FFTs. */
function bluestein(re: Float64Array, im: Float64Array, sign: number): void {
  const n = re.length;
  const { m, cr, ci, br, bi } = bluesteinPlan(n, sign);
  const ar = new Float64Array(m);
  const ai = new Float64Array(m);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k] * cr[k] - im[k] * ci[k];
    ai[k] = re[k] * ci[k] + im[k] * cr[k];
  }
  radix2(ar, ai, -1);
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
