/**
 * The dense matrix-multiply core every nn kernel shares (Gemm, MatMul, Conv via im2col, RNNs).
 * Large products go to the packed, register-blocked kernel in gemm-packed.ts; the loops here serve
 * small or skinny shapes where packing costs more than it saves.
 *
 * `gemmAccumulate` computes C += alpha · op(A) · op(B) on row-major matrices at offsets with leading
 * dimensions, so callers can address slices of larger tensors without copying. The caller fills C first
 * (zeros, bias or beta·C). Loop order is i-k-j: the innermost loop streams a row of B and a row of C,
 * both contiguous; four rows of C share each B load, and k/j are blocked so the B panel stays in cache.
 */
import type { FloatArray } from './float-io.js';
import { gemmPacked } from './gemm-packed.js';

/** Rows of B (k) per cache block. */
const K_BLOCK = 256;
/** Columns of B/C (j) per cache block: K_BLOCK × N_BLOCK floats ≈ 256 KiB of float32. */
const N_BLOCK = 256;

export interface MatrixRef {
  data: FloatArray;
  offset: number;
  /** Leading dimension: elements between consecutive rows of the stored matrix. */
  ld: number;
  /** Whether the stored matrix is the transpose of the operand. */
  trans: boolean;
}

/** C[M×N] += alpha · op(A)[M×K] · op(B)[K×N]. */
export function gemmAccumulate(
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: MatrixRef,
  B: MatrixRef,
  c: FloatArray,
  cOff: number,
  ldc: number,
): void {
  if (M === 0 || N === 0 || K === 0 || alpha === 0) return;
  if (M >= 8 && N >= 8 && K >= 8) {
    // Large enough for packing to pay off: register-blocked micro-kernel on packed panels.
    gemmPacked(
      M, N, K, alpha,
      { data: A.data, offset: A.offset, rs: A.trans ? 1 : A.ld, cs: A.trans ? A.ld : 1 },
      { data: B.data, offset: B.offset, rs: B.trans ? 1 : B.ld, cs: B.trans ? B.ld : 1 },
      c, cOff, ldc,
    );
    return;
  }
  if (B.trans) {
    if (!A.trans && M <= 4) {
      // Few rows (a batch-1 Linear layer): dot products over contiguous rows beat repacking B.
      gemmDotRows(M, N, K, alpha, A.data, A.offset, A.ld, B.data, B.offset, B.ld, c, cOff, ldc);
      return;
    }
    // Repack op(B) as K×N row-major so the main kernel streams it.
    const packed = B.data instanceof Float64Array ? new Float64Array(K * N) : new Float32Array(K * N);
    const b = B.data;
    for (let j = 0; j < N; j++) {
      const src = B.offset + j * B.ld;
      for (let k = 0; k < K; k++) packed[k * N + j] = b[src + k];
    }
    gemmIkj(M, N, K, alpha, A.data, A.offset, A.ld, A.trans, packed, 0, N, c, cOff, ldc);
    return;
  }
  gemmIkj(M, N, K, alpha, A.data, A.offset, A.ld, A.trans, B.data, B.offset, B.ld, c, cOff, ldc);
}

function gemmIkj(
  M: number,
  N: number,
  K: number,
  alpha: number,
  a: FloatArray,
  aOff: number,
  lda: number,
  transA: boolean,
  b: FloatArray,
  bOff: number,
  ldb: number,
  c: FloatArray,
  cOff: number,
  ldc: number,
): void {
  // A(i,k) = a[aOff + i*ai + k*ak]
  const ai = transA ? 1 : lda;
  const ak = transA ? lda : 1;
  for (let j0 = 0; j0 < N; j0 += N_BLOCK) {
    const j1 = Math.min(N, j0 + N_BLOCK);
    for (let k0 = 0; k0 < K; k0 += K_BLOCK) {
      const k1 = Math.min(K, k0 + K_BLOCK);
      let i = 0;
      for (; i + 4 <= M; i += 4) {
        const c0 = cOff + i * ldc;
        const c1 = c0 + ldc;
        const c2 = c1 + ldc;
        const c3 = c2 + ldc;
        const ar = aOff + i * ai;
        for (let k = k0; k < k1; k++) {
          const ak0 = ar + k * ak;
          const a0 = alpha * a[ak0];
          const a1 = alpha * a[ak0 + ai];
          const a2 = alpha * a[ak0 + 2 * ai];
          const a3 = alpha * a[ak0 + 3 * ai];
          if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue; // common after ReLU
          const br = bOff + k * ldb;
          for (let j = j0; j < j1; j++) {
            const bv = b[br + j];
            c[c0 + j] += a0 * bv;
            c[c1 + j] += a1 * bv;
            c[c2 + j] += a2 * bv;
            c[c3 + j] += a3 * bv;
          }
        }
      }
      for (; i < M; i++) {
        const c0 = cOff + i * ldc;
        const ar = aOff + i * ai;
        let k = k0;
        // Four rows of B per pass over the C row: a quarter of the C loads and stores.
        for (; k + 4 <= k1; k += 4) {
          const a0 = alpha * a[ar + k * ak];
          const a1 = alpha * a[ar + (k + 1) * ak];
          const a2 = alpha * a[ar + (k + 2) * ak];
          const a3 = alpha * a[ar + (k + 3) * ak];
          const b0 = bOff + k * ldb;
          const b1 = b0 + ldb;
          const b2 = b1 + ldb;
          const b3 = b2 + ldb;
          for (let j = j0; j < j1; j++) c[c0 + j] += a0 * b[b0 + j] + a1 * b[b1 + j] + a2 * b[b2 + j] + a3 * b[b3 + j];
        }
        for (; k < k1; k++) {
          const a0 = alpha * a[ar + k * ak];
          if (a0 === 0) continue;
          const br = bOff + k * ldb;
          for (let j = j0; j < j1; j++) c[c0 + j] += a0 * b[br + j];
        }
      }
    }
  }
}

/** C += alpha · A · Bᵀ with B stored N×K: each C element is a dot product of two contiguous rows. */
function gemmDotRows(
  M: number,
  N: number,
  K: number,
  alpha: number,
  a: FloatArray,
  aOff: number,
  lda: number,
  b: FloatArray,
  bOff: number,
  ldb: number,
  c: FloatArray,
  cOff: number,
  ldc: number,
): void {
  for (let i = 0; i < M; i++) {
    const ar = aOff + i * lda;
    const cr = cOff + i * ldc;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      const b0 = bOff + j * ldb;
      const b1 = b0 + ldb;
      const b2 = b1 + ldb;
      const b3 = b2 + ldb;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = 0; k < K; k++) {
        const av = a[ar + k];
        s0 += av * b[b0 + k];
        s1 += av * b[b1 + k];
        s2 += av * b[b2 + k];
        s3 += av * b[b3 + k];
      }
      c[cr + j] += alpha * s0;
      c[cr + j + 1] += alpha * s1;
      c[cr + j + 2] += alpha * s2;
      c[cr + j + 3] += alpha * s3;
    }
    for (; j < N; j++) {
      const b0 = bOff + j * ldb;
      let s = 0;
      for (let k = 0; k < K; k++) s += a[ar + k] * b[b0 + k];
      c[cr + j] += alpha * s;
    }
  }
}
