/**
 * Integer matrix products for MatMulInteger / QLinearMatMul: operands are widened to float64 with
 * their zero points subtracted (int8 products summed in float64 are exact far beyond any real K),
 * multiplied with the shared GEMM, and returned as float64 accumulators for the caller to narrow.
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { gemmAccumulate } from './gemm.js';
import { intData } from './quantize.js';
import { planMatMul, type MatMulPlan } from './matmul-plan.js';

/** Zero point for a row (A) or column (B) of the matrix: scalar or one per row/column. */
function zeroPoints(op: string, what: string, t: Tensor | undefined, count: number): (i: number) => number {
  if (!t) return () => 0;
  const v = intData(t, `${op} ${what}`);
  if (t.size === 1) return () => v[0];
  if (t.size === count) return (i) => v[i];
  throw new SwitchyardError('INVALID_SHAPE', `${op}: ${what} must be a scalar or have ${count} entries, got [${t.dims.join(', ')}]`);
}

export function integerMatMul(op: string, A: Tensor, B: Tensor, aZero: Tensor | undefined, bZero: Tensor | undefined): { acc: Float64Array; plan: MatMulPlan } {
  const plan = planMatMul(op, A.dims, B.dims);
  const { M, K, N } = plan;
  const a = intData(A, `${op} A`);
  const b = intData(B, `${op} B`);
  const azp = zeroPoints(op, 'a_zero_point', aZero, M);
  const bzp = zeroPoints(op, 'b_zero_point', bZero, N);
  const af = new Float64Array(A.size);
  for (let i = 0; i < A.size; i++) af[i] = a[i] - azp(Math.floor(i / K) % M);
  const bf = new Float64Array(B.size);
  for (let i = 0; i < B.size; i++) bf[i] = b[i] - bzp(i % N);
  const count = plan.aIndex.length;
  const acc = new Float64Array(count * M * N);
  for (let i = 0; i < count; i++) {
    gemmAccumulate(M, N, K, 1, { data: af, offset: plan.aIndex[i] * M * K, ld: K, trans: false }, { data: bf, offset: plan.bIndex[i] * K * N, ld: N, trans: false }, acc, i * M * N, N);
  }
  return { acc, plan };
}
