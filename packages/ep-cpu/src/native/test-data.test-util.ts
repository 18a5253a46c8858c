/** Seeded test inputs, a reference conv and option builders shared by the native kernels' tests. */
import type { ConvPrimitiveOptions, NativeBinding } from './binding.js';

/**
 * The vector ISA family oneDNN runs on in this process (its effective ISA: `ONEDNN_MAX_CPU_ISA=AVX2`
 * makes an AVX-512 machine answer 'avx2'). Tests of a path that only one ISA takes check which one is
 * here and expect that path, so the suite passes on both; scripts/test.sh runs the native suites capped
 * at AVX2 on AVX-512 machines, so both paths are tested there.
 */
export function isaFamily(binding: NativeBinding | undefined): 'avx512' | 'avx2' | 'other' {
  const isa = binding?.runtimeInfo().cpuIsa ?? '';
  return isa.startsWith('avx512') ? 'avx512' : isa.startsWith('avx2') ? 'avx2' : 'other';
}

/** `n` values `(u · 2 − 1) · scale + offset` with u uniform in [0, 1): [-1, 1) by default (an LCG: the same values on every machine). */
export function seededFloats(n: number, seed: number, scale = 1, offset = 0): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 31 - 1) * scale + offset;
  }
  return out;
}

/** A 2-D ONNX Conv with one group, its fused epilogue, on plain NCHW: the native conv tests' reference. */
export interface ReferenceConv {
  n: number;
  c: number;
  k: number;
  h: number;
  w: number;
  kernel: [number, number];
  strides?: [number, number];
  dilations?: [number, number];
  padsBegin?: [number, number];
  padsEnd?: [number, number];
  activation?: 'none' | 'relu' | 'leakyRelu' | 'clip';
  alpha?: number;
  beta?: number;
}

export function convOutputDims(t: ReferenceConv): [number, number, number, number] {
  const [sh, sw] = t.strides ?? [1, 1];
  const [dh, dw] = t.dilations ?? [1, 1];
  const [pt, pl] = t.padsBegin ?? [0, 0];
  const [pb, pr] = t.padsEnd ?? [0, 0];
  const oh = Math.floor((t.h + pt + pb - (t.kernel[0] - 1) * dh - 1) / sh) + 1;
  const ow = Math.floor((t.w + pl + pr - (t.kernel[1] - 1) * dw - 1) / sw) + 1;
  return [t.n, t.k, oh, ow];
}

/** y = activation(conv(x, w) + b + z), accumulated in double; x, w, z and y plain NCHW / KCHW. */
export function referenceConv(t: ReferenceConv, x: Float32Array, w: Float32Array, b?: Float32Array, z?: Float32Array): Float32Array {
  const [, , oh, ow] = convOutputDims(t);
  const [kh, kw] = t.kernel;
  const [sh, sw] = t.strides ?? [1, 1];
  const [dh, dw] = t.dilations ?? [1, 1];
  const [pt, pl] = t.padsBegin ?? [0, 0];
  const y = new Float32Array(t.n * t.k * oh * ow);
  let i = 0;
  for (let n = 0; n < t.n; n++)
    for (let m = 0; m < t.k; m++)
      for (let r = 0; r < oh; r++)
        for (let q = 0; q < ow; q++, i++) {
          let acc = b ? b[m] : 0;
          for (let c = 0; c < t.c; c++)
            for (let u = 0; u < kh; u++) {
              const ih = r * sh - pt + u * dh;
              if (ih < 0 || ih >= t.h) continue;
              for (let v = 0; v < kw; v++) {
                const iw = q * sw - pl + v * dw;
                if (iw < 0 || iw >= t.w) continue;
                acc += x[((n * t.c + c) * t.h + ih) * t.w + iw] * w[((m * t.c + c) * kh + u) * kw + v];
              }
            }
          if (z) acc += z[i];
          if (t.activation === 'relu') acc = Math.max(acc, 0);
          if (t.activation === 'leakyRelu' && acc < 0) acc *= t.alpha ?? 0;
          if (t.activation === 'clip') acc = Math.min(Math.max(acc, t.alpha ?? 0), t.beta ?? 0);
          y[i] = acc;
        }
  return y;
}

/** Every element within `tol` · (1 + |expected|); names the first that is not (NaN included), after `what`. */
export function expectCloseArrays(actual: Float32Array, expected: Float32Array, tol: number, what = ''): void {
  const at = what ? `${what}: ` : '';
  if (actual.length !== expected.length) throw new Error(`${at}length ${actual.length}, expected ${expected.length}`);
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])))) throw new Error(`${at}[${i}]: ${actual[i]} vs ${expected[i]}`);
  }
}

/** A ReferenceConv run by a ConvPrimitive on 8-blocked buffers. */
export interface BlockedConvCase extends ReferenceConv {
  bias?: boolean;
  sum?: boolean;
  threads?: number;
}

/** ConvPrimitive options for `t` on 8-blocked X / Y / Z with constant weights `w` (and bias `b`); `extra` last. */
export function blockedConvOptions(t: BlockedConvCase, w: Float32Array, b: Float32Array | undefined, extra: Partial<ConvPrimitiveOptions> = {}): ConvPrimitiveOptions {
  return {
    inputDims: [t.n, t.c, t.h, t.w],
    weightDims: [t.k, t.c, ...t.kernel],
    strides: t.strides,
    dilations: t.dilations,
    padsBegin: t.padsBegin,
    padsEnd: t.padsEnd,
    hasBias: Boolean(b),
    activation: t.activation ?? 'none',
    activationAlpha: t.alpha,
    activationBeta: t.beta,
    hasSum: Boolean(t.sum),
    threads: t.threads ?? 1,
    srcBlock: 8,
    dstBlock: 8,
    weights: w,
    bias: b,
    ...extra,
  };
}
