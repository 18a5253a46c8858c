/**
 * A single-row product with constant B (a batch-1 classifier's Gemm). It streams B through the addon's
 * skinny kernel (skinny_gemm.h). Without that (`skinny: 'never'`): one 1x1 convolution cannot split one
 * row between threads, so with several threads it runs as one single-threaded 1x1 convolution per
 * thread over its own columns (the output-channel split), or, without that, as a matmul. Every route
 * must match a reference loop.
 */
import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';
import { isaFamily, seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.GemmPrimitive ? native.binding : undefined;

describe.skipIf(!binding)('single-row Gemm with constant B', () => {
  const [k, n] = [96, 70];
  const a = seededFloats(k, 1);
  const b = seededFloats(n * k, 2); // [N, K], transB
  const c = seededFloats(n, 3);
  const expected = Array.from({ length: n }, (_, j) => {
    let s = c[j];
    for (let i = 0; i < k; i++) s += a[i] * b[j * k + i];
    return s;
  });

  // The 1x1-conv route is for AVX2, where oneDNN's f32 matmul is its slower gemm:jit; on AVX-512 the
  // matmul is brgemm-based and as fast, and the 1x1 conv would be channels-last brgconv: matmul it is.
  const isa = isaFamily(binding);
  /** Runs one configuration against the reference; returns its implementation. */
  function check(threads: number, channelSplit: 'auto' | 'never', withC = true, skinny: 'auto' | 'never' = 'never'): string {
    const gemm = new binding!.GemmPrimitive!({ aDims: [1, k], bDims: [n, k], transB: true, threads, b, channelSplit, skinny, ...(withC ? { cDims: [n], c } : {}) });
    try {
      const y = new Float32Array(n).fill(Number.NaN); // a column left unwritten fails
      gemm.runSync(a, null, null, y);
      y.forEach((v, j) => {
        const e = expected[j] - (withC ? 0 : c[j]);
        if (!(Math.abs(v - e) <= 1e-4 * (1 + Math.abs(e)))) throw new Error(`threads ${threads}, ${channelSplit}: y[${j}] = ${v}, expected ${e}`);
      });
      return gemm.implementation;
    } finally {
      gemm.dispose();
    }
  }

  it('streams B through the skinny kernel by default, at 1 and 2 threads', () => {
    for (const threads of [1, 2]) {
      for (const withC of [true, false]) expect(check(threads, 'auto', withC, 'auto')).toBe(`switchyard:skinny_gemm:${binding!.vectorIsa!()}`);
    }
  });

  it('without it, matches the reference at 1 thread: one 1x1 conv on AVX2, a brgemm matmul on AVX-512', () => {
    for (const withC of [true, false]) {
      const implementation = check(1, 'auto', withC);
      expect(implementation).not.toMatch(/split/);
      if (isa === 'avx2') expect(implementation).toMatch(/as 1x1 conv/);
      if (isa === 'avx512') expect(implementation).toMatch(/^brg/);
    }
  });

  it('without it, matches the reference at 2 threads: on AVX2 a 1x1 conv per thread over its columns (70 = 32 + 38)', () => {
    for (const withC of [true, false]) {
      const implementation = check(2, 'auto', withC);
      if (isa === 'avx2') expect(implementation).toMatch(/as 1x1 conv\) x2 \(output-channel split\)/);
      if (isa === 'avx512') expect(implementation).toMatch(/^brg/);
    }
  });

  it('without it, matches the reference at 2 threads without the split, as a matmul', () => {
    expect(check(2, 'never')).not.toMatch(/as 1x1 conv|split/);
  });
});
