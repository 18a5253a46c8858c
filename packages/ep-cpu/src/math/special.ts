/** Scalar math functions JS lacks, used inside generated elementwise loops (see codegen.ts). */

const TWO_OVER_SQRT_PI = 1.1283791670955126;

/**
 * Error function. Taylor series near zero (keeps relative accuracy for tiny inputs), and the
 * Chebyshev-fitted erfc of Numerical Recipes elsewhere (fractional error < 1.2e-7).
 */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 0.5) {
    // Σ (-1)^n x^(2n+1) / (n! (2n+1)); 10 terms reach double precision for |x| < 0.5.
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 12; n++) {
      term *= -x2 / n;
      sum += term / (2 * n + 1);
    }
    return TWO_OVER_SQRT_PI * sum;
  }
  if (Number.isNaN(x)) return NaN;
  const t = 1 / (1 + 0.5 * ax);
  const tau =
    t *
    Math.exp(
      -ax * ax -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - tau : tau - 1;
}

/** Round half to even (ONNX Round, numpy.round), keeping -0. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x); // rounds halves toward +∞
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Integer modulus with the sign of the divisor (ONNX Mod with fmod=0, Python's %). */
export function floorMod(x: number, y: number): number {
  const r = x % y;
  return r !== 0 && r < 0 !== y < 0 ? r + y : r;
}

export function floorModBig(x: bigint, y: bigint): bigint {
  const r = x % y;
  return r !== 0n && r < 0n !== y < 0n ? r + y : r;
}

/** log(1 + e^x) without overflow. */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/** 1 / (1 + e^-x) without overflow for large |x|. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** Integer power by squaring in doubles; exact while intermediate values stay below 2^53. */
export function intPow(base: number, exp: number): number {
  if (exp < 0) {
    // Integer semantics: only ±1 have non-zero reciprocals; 0^-n is undefined, give 0 like truncation of Inf would not.
    if (base === 1) return 1;
    if (base === -1) return exp % 2 === 0 ? 1 : -1;
    return 0;
  }
  let result = 1;
  let b = base;
  let e = exp;
  while (e > 0) {
    if (e & 1) result *= b;
    e = Math.floor(e / 2);
    if (e > 0) b *= b;
  }
  return result;
}

export function intPowBig(base: bigint, exp: bigint): bigint {
  if (exp < 0n) {
    if (base === 1n) return 1n;
    if (base === -1n) return exp % 2n === 0n ? 1n : -1n;
    return 0n;
  }
  let result = 1n;
  let b = base;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = BigInt.asIntN(64, result * b);
    e >>= 1n;
    if (e > 0n) b = BigInt.asIntN(64, b * b);
  }
  return result;
}

const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_PI = 0.5641895835477563;
/** Continued-fraction depth: at z ≥ 2 this reaches ~1e-12 relative accuracy. */
const CF_TERMS = 60;

/** erfc(z) for z ≥ 2 by the continued fraction erfc(z) = e^{-z²}/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))). */
function erfcLarge(z: number): number {
  let f = z;
  for (let k = CF_TERMS; k >= 1; k--) f = z + k / 2 / f;
  return (Math.exp(-z * z) * INV_SQRT_PI) / f;
}

/**
 * x · Φ(x) = 0.5 · x · (1 + erf(x / √2)) (com.microsoft Gelu). Relative error < 1e-6 everywhere: for
 * x < -2√2, where 1 + erf underflows toward 0 and would cancel, erfc comes from its continued fraction.
 */
export function gelu(x: number): number {
  const z = x * SQRT1_2;
  if (z < -2) return 0.5 * x * erfcLarge(-z);
  return 0.5 * x * (1 + erf(z));
}

/** x·σ(2u), u = √(2/π)(x + 0.044715x³): the tanh GELU (com.microsoft FastGelu), as 1 + tanh u = 2σ(2u), which does not cancel for x < 0. */
export function geluTanh(x: number): number {
  const u2 = 2 * Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x);
  return x * sigmoid(u2);
}
