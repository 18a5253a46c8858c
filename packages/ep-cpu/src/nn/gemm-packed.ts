/**
 * Packed GEMM for large products (GotoBLAS structure): B is packed into K-block × N-block panels of
 * 4 columns, A into panels of 4 rows, and a 4×4 micro-kernel keeps its 16 accumulators in registers
 * across the whole K block, loading 8 values per 16 multiply-adds and storing C once per block.
 */
import type { FloatArray } from './float-io.js';

const MR = 4;
const NR = 4;
const KC = 256;
const MC = 128;
const NC = 1024;

export interface Operand {
  data: FloatArray;
  offset: number;
  /** Element (r, c) of the logical operand is data[offset + r*rs + c*cs]. */
  rs: number;
  cs: number;
}

// Scratch panels reused across calls (kernels run synchronously), allocated on first use. Float64
// panels measured faster than Float32 ones in V8 (no widening in the micro-kernel).
let packA: Float64Array | undefined;
let packB: Float64Array | undefined;

/** C[M×N] += alpha · A[M×K] · B[K×N]. */
export function gemmPacked(M: number, N: number, K: number, alpha: number, A: Operand, B: Operand, c: FloatArray, cOff: number, ldc: number): void {
  const pa = (packA ??= new Float64Array(MC * KC));
  const pb = (packB ??= new Float64Array(KC * NC));
  for (let jc = 0; jc < N; jc += NC) {
    const nc = Math.min(NC, N - jc);
    const nPanels = Math.ceil(nc / NR);
    for (let pc = 0; pc < K; pc += KC) {
      const kc = Math.min(KC, K - pc);
      // pack B[pc:pc+kc, jc:jc+nc] as panels of NR columns, k-major inside a panel
      const bd = B.data;
      for (let p = 0; p < nPanels; p++) {
        const j0 = jc + p * NR;
        const nr = Math.min(NR, N - j0);
        let dst = p * kc * NR;
        for (let k = 0; k < kc; k++) {
          const src = B.offset + (pc + k) * B.rs + j0 * B.cs;
          for (let j = 0; j < NR; j++) pb[dst++] = j < nr ? bd[src + j * B.cs] : 0;
        }
      }
      for (let ic = 0; ic < M; ic += MC) {
        const mc = Math.min(MC, M - ic);
        const mPanels = Math.ceil(mc / MR);
        const ad = A.data;
        for (let p = 0; p < mPanels; p++) {
          const i0 = ic + p * MR;
          const mr = Math.min(MR, M - i0);
          let dst = p * kc * MR;
          for (let k = 0; k < kc; k++) {
            const src = A.offset + i0 * A.rs + (pc + k) * A.cs;
            for (let i = 0; i < MR; i++) pa[dst++] = i < mr ? alpha * ad[src + i * A.rs] : 0;
          }
        }
        for (let jp = 0; jp < nPanels; jp++) {
          const j0 = jc + jp * NR;
          const nr = Math.min(NR, N - j0);
          const bBase = jp * kc * NR;
          for (let ip = 0; ip < mPanels; ip++) {
            const i0 = ic + ip * MR;
            const mr = Math.min(MR, M - i0);
            microKernel(kc, pa, ip * kc * MR, pb, bBase, c, cOff + i0 * ldc + j0, ldc, mr, nr);
          }
        }
      }
    }
  }
}

function microKernel(kc: number, pa: Float64Array, aOff: number, pb: Float64Array, bOff: number, c: FloatArray, cOff: number, ldc: number, mr: number, nr: number): void {
  let c00 = 0, c01 = 0, c02 = 0, c03 = 0;
  let c10 = 0, c11 = 0, c12 = 0, c13 = 0;
  let c20 = 0, c21 = 0, c22 = 0, c23 = 0;
  let c30 = 0, c31 = 0, c32 = 0, c33 = 0;
  let ai = aOff;
  let bi = bOff;
  for (let k = 0; k < kc; k++, ai += 4, bi += 4) {
    const a0 = pa[ai], a1 = pa[ai + 1], a2 = pa[ai + 2], a3 = pa[ai + 3];
    const b0 = pb[bi], b1 = pb[bi + 1], b2 = pb[bi + 2], b3 = pb[bi + 3];
    c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3;
    c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3;
    c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3;
    c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3;
  }
  if (mr === 4 && nr === 4) {
    let o = cOff;
    c[o] += c00; c[o + 1] += c01; c[o + 2] += c02; c[o + 3] += c03;
    o += ldc;
    c[o] += c10; c[o + 1] += c11; c[o + 2] += c12; c[o + 3] += c13;
    o += ldc;
    c[o] += c20; c[o + 1] += c21; c[o + 2] += c22; c[o + 3] += c23;
    o += ldc;
    c[o] += c30; c[o + 1] += c31; c[o + 2] += c32; c[o + 3] += c33;
    return;
  }
  const tile = [c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33];
  for (let i = 0; i < mr; i++) for (let j = 0; j < nr; j++) c[cOff + i * ldc + j] += tile[i * 4 + j];
}
