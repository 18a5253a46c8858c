import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel } from '@switchyard/core/testing';
import { gemmKernel } from './Gemm.js';
import { matMulKernel } from './MatMul.js';
import { expectClose, f32 } from '../nn/test-helpers.js';

/** Naive reference: element (i, j) of op(A)·op(B), A stored [rows, cols]. */
function refMatMul(a: ArrayLike<number>, b: ArrayLike<number>, M: number, K: number, N: number, ta = false, tb = false): number[] {
  const out: number[] = [];
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += (ta ? a[k * M + i] : a[i * K + k]) * (tb ? b[j * K + k] : b[k * N + j]);
      out.push(s);
    }
  return out;
}

describe('Gemm', () => {
  for (const [ta, tb, M] of [[0, 0, 7], [1, 0, 9], [0, 1, 3], [0, 1, 11], [1, 1, 6]] as const) {
    it(`transA=${ta} transB=${tb} M=${M} with alpha, beta and a row-broadcast C`, async () => {
      const K = 13;
      const N = 5;
      const A = f32(ta ? [K, M] : [M, K], 1);
      const B = f32(tb ? [N, K] : [K, N], 2);
      const C = f32([1, N], 3);
      const ref = refMatMul(A.data, B.data, M, K, N, !!ta, !!tb).map((v, idx) => 0.5 * v + 2 * C.data[idx % N]);
      const [y] = await runKernel(gemmKernel, [A, B, C], { attributes: { transA: ta, transB: tb, alpha: { float: 0.5 }, beta: { float: 2 } } });
      expectClose(y, [M, N], ref);
    });
  }

  for (const [ta, tb] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
    it(`packed path, ragged edges, transA=${ta} transB=${tb}`, async () => {
      const [M, K, N] = [19, 23, 29];
      const A = f32(ta ? [K, M] : [M, K], 11);
      const B = f32(tb ? [N, K] : [K, N], 12);
      const [y] = await runKernel(gemmKernel, [A, B], { attributes: { transA: ta, transB: tb, alpha: { float: -1.5 } } });
      expectClose(y, [M, N], refMatMul(A.data, B.data, M, K, N, !!ta, !!tb).map((v) => -1.5 * v));
    });
  }

  it('packed path across the N block (N > 1024)', async () => {
    const [M, K, N] = [9, 20, 1030];
    const A = f32([M, K], 13);
    const B = f32([K, N], 14);
    expectClose((await runKernel(gemmKernel, [A, B]))[0], [M, N], refMatMul(A.data, B.data, M, K, N));
  });

  it('broadcasts a column C and a scalar C, and runs without C', async () => {
    const A = f32([4, 3], 1);
    const B = f32([3, 2], 2);
    const base = refMatMul(A.data, B.data, 4, 3, 2);
    const col = new Tensor('float32', [1, 2, 3, 4], [4, 1]);
    expectClose((await runKernel(gemmKernel, [A, B, col]))[0], [4, 2], base.map((v, i) => v + col.data[Math.floor(i / 2)]));
    expectClose((await runKernel(gemmKernel, [A, B, new Tensor('float32', [5], [])]))[0], [4, 2], base.map((v) => v + 5));
    expectClose((await runKernel(gemmKernel, [A, B]))[0], [4, 2], base);
  });

  it('rejects mismatched inner dims and non-broadcastable C', async () => {
    await expect(runKernel(gemmKernel, [f32([2, 3]), f32([4, 2])])).rejects.toThrow(/inner dimensions/);
    await expect(runKernel(gemmKernel, [f32([2, 3]), f32([3, 2]), f32([3, 2])])).rejects.toThrow(/broadcast/);
  });
});

describe('MatMul', () => {
  it('2-D, large enough to cross the cache blocks', async () => {
    const [M, K, N] = [37, 300, 270];
    const A = f32([M, K], 4);
    const B = f32([K, N], 5);
    expectClose((await runKernel(matMulKernel, [A, B]))[0], [M, N], refMatMul(A.data, B.data, M, K, N), 1e-4);
  });

  it('broadcasts batch dims and folds a shared B', async () => {
    const A = f32([2, 1, 3, 4], 6);
    const B = f32([3, 4, 5], 7);
    const [y] = await runKernel(matMulKernel, [A, B]);
    const expected: number[] = [];
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 3; j++) expected.push(...refMatMul(A.data.subarray(i * 12, i * 12 + 12), B.data.subarray(j * 20, j * 20 + 20), 3, 4, 5));
    expectClose(y, [2, 3, 3, 5], expected);
    const shared = f32([4, 5], 8);
    const [z] = await runKernel(matMulKernel, [A, shared]);
    const exp2: number[] = [];
    for (let i = 0; i < 2; i++) exp2.push(...refMatMul(A.data.subarray(i * 12, i * 12 + 12), shared.data, 3, 4, 5));
    expectClose(z, [2, 1, 3, 5], exp2);
  });

  it('promotes 1-D operands and drops the promoted dim', async () => {
    const v = f32([4], 9);
    const m = f32([2, 4, 3], 10);
    const [y] = await runKernel(matMulKernel, [v, m]);
    const expected = [...refMatMul(v.data, m.data.subarray(0, 12), 1, 4, 3), ...refMatMul(v.data, m.data.subarray(12), 1, 4, 3)];
    expectClose(y, [2, 3], expected);
    const [dot] = await runKernel(matMulKernel, [v, v]);
    expectClose(dot, [], refMatMul(v.data, v.data, 1, 4, 1));
  });

  it('rejects incompatible shapes', async () => {
    await expect(runKernel(matMulKernel, [f32([2, 3]), f32([4, 2])])).rejects.toThrow(/inner dimensions/);
    await expect(runKernel(matMulKernel, [f32([2, 2, 3]), f32([3, 3, 2])])).rejects.toThrow(/broadcast/);
  });
});
