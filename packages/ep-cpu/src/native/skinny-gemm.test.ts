/**
 * The skinny kernel (skinny_gemm.h): up to 4 rows times a constant B, packed in 16-column panels. Every
 * build this CPU runs (AVX-512, AVX2, the portable loop, switched with vectorIsa), B as [K, N] and as
 * [N, K], with and without a bias row, column counts that leave a partial panel, 1 and 2 threads, and
 * B unpacked again for another row count (packedFrom): each against a reference loop. More rows, a
 * transposed A, alpha or a C that is not a row take the other routes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';
import { expectCloseArrays, seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.GemmPrimitive && native.binding.vectorIsa ? native.binding : undefined;

function reference(a: Float32Array, m: number, k: number, b: Float32Array, n: number, transB: boolean, c?: Float32Array): Float32Array {
  const y = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = c ? c[j] : 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * (transB ? b[j * k + p] : b[p * n + j]);
      y[i * n + j] = s;
    }
  }
  return y;
}

describe.skipIf(!binding)('skinny Gemm', () => {
  const builds = ['avx512', 'avx2', 'generic'].filter((isa) => {
    try {
      binding!.vectorIsa!(isa as 'avx512');
      return true;
    } catch {
      return false;
    }
  });
  afterAll(() => binding!.vectorIsa!('auto'));

  it('matches the reference for every build, layout, bias, row count, partial panel and team size', () => {
    expect(builds).toContain('generic');
    for (const isa of builds) {
      binding!.vectorIsa!(isa as 'avx512');
      for (const [k, n] of [[37, 70], [200, 16], [5, 3], [768, 130]]) {
        for (const transB of [true, false]) {
          const b = seededFloats(k * n, k + n);
          const c = seededFloats(n, 7);
          for (const withC of [true, false]) {
            for (const m of [1, 2, 3, 4]) {
              for (const threads of [1, 2]) {
                const a = seededFloats(m * k, m * 31 + k);
                const gemm = new binding!.GemmPrimitive!({ aDims: [m, k], bDims: transB ? [n, k] : [k, n], transB, threads, b, ...(withC ? { cDims: [n], c } : {}) });
                try {
                  expect(gemm.implementation).toBe(`switchyard:skinny_gemm:${isa}`);
                  const y = new Float32Array(m * n).fill(Number.NaN);
                  gemm.runSync(a, null, null, y);
                  expectCloseArrays(y, reference(a, m, k, b, n, transB, withC ? c : undefined), 1e-4, `${isa} k${k} n${n} transB ${transB} C ${withC} m${m} t${threads}`);
                } finally {
                  gemm.dispose();
                }
              }
            }
          }
        }
      }
    }
  });

  it('gives B back for another row count (packedFrom), skinny or not', () => {
    const [k, n] = [48, 40];
    const b = seededFloats(k * n, 3);
    const c = seededFloats(n, 4);
    for (const transB of [true, false]) {
      const donor = new binding!.GemmPrimitive!({ aDims: [1, k], bDims: transB ? [n, k] : [k, n], transB, threads: 2, b, cDims: [n], c });
      expect(donor.implementation).toMatch(/skinny_gemm/);
      for (const m of [3, 9]) {
        const gemm = new binding!.GemmPrimitive!({ aDims: [m, k], bDims: transB ? [n, k] : [k, n], transB, threads: 2, packedFrom: donor, cDims: [n], c });
        try {
          if (m > 4) expect(gemm.implementation).not.toMatch(/skinny_gemm/);
          const a = seededFloats(m * k, m);
          const y = new Float32Array(m * n);
          gemm.runSync(a, null, null, y);
          expectCloseArrays(y, reference(a, m, k, b, n, transB, c), 1e-4, `packedFrom transB ${transB} m${m}`);
        } finally {
          gemm.dispose();
        }
      }
      donor.dispose();
    }
  });

  it('leaves what it does not serve to the other routes', () => {
    const [k, n] = [16, 24];
    const b = seededFloats(k * n, 5);
    const routes = [
      { aDims: [5, k], bDims: [k, n], b },
      { aDims: [k, 2], bDims: [k, n], transA: true, b },
      { aDims: [2, k], bDims: [k, n], alpha: 0.5, b },
      { aDims: [2, k], bDims: [k, n], b, cDims: [2, n], c: seededFloats(2 * n, 6) },
      { aDims: [2, k], bDims: [k, n] },
      { aDims: [2, k], bDims: [k, n], b, skinny: 'never' as const },
    ];
    for (const options of routes) {
      const gemm = new binding!.GemmPrimitive!({ threads: 1, ...options });
      expect(gemm.implementation, JSON.stringify(options.aDims)).not.toMatch(/skinny_gemm/);
      gemm.dispose();
    }
  });
});
