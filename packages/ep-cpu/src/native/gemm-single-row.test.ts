/**
 * A single-row product with constant B (a batch-1 classifier's Gemm): with several threads it must
 * leave the 1x1-convolution route (which cannot split one row) for matmul, and either route must
 * match a reference loop.
 */
import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: {} });
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

  for (const threads of [1, 2]) {
    it(`matches the reference at ${threads} thread(s), as a 1x1 conv only on one thread`, () => {
      const gemm = new binding!.GemmPrimitive!({ aDims: [1, k], bDims: [n, k], transB: true, cDims: [n], threads, b, c });
      try {
        const y = new Float32Array(n);
        gemm.runSync(a, null, null, y);
        y.forEach((v, j) => expect(Math.abs(v - expected[j])).toBeLessThan(1e-4 * (1 + Math.abs(expected[j]))));
        const isaHasJit = /avx2|avx512/.test(binding!.runtimeInfo().cpuIsa);
        if (threads > 1) expect(gemm.implementation).not.toMatch(/as 1x1 conv/);
        else if (isaHasJit) expect(gemm.implementation).toMatch(/as 1x1 conv/);
      } finally {
        gemm.dispose();
      }
    });
  }
});
