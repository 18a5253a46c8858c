/**
 * Gemm's B held once: a constant B is packed at session creation when only A's rows are symbolic, the
 * model's copy is released, and primitives for the row counts runs bring pack from one another
 * (`packedFrom`), whichever route each took (one row split over threads, a 1x1 convolution, a matmul).
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import type { GemmPrimitive } from './binding.js';
import { loadNative } from './load-native.js';
import { expectCloseArrays, seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && native.binding.GemmPrimitive ? native.binding : undefined;
const hasNative = Boolean(binding) && new CpuExecutionProvider().nativeUnavailable === undefined;

/** alpha · op(A) · op(B) + beta · C, C broadcast from [N] or [1, N] or absent; plain loops. */
function referenceGemm(o: { a: Float32Array; m: number; k: number; b: Float32Array; n: number; transB: boolean; c?: Float32Array; alpha?: number; beta?: number }): Float32Array {
  const { a, m, k, b, n, transB, c, alpha = 1, beta = 1 } = o;
  const y = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * (transB ? b[j * k + p] : b[p * n + j]);
      y[i * n + j] = alpha * s + (c ? beta * c[j] : 0);
    }
  }
  return y;
}

describe.skipIf(!binding)('GemmPrimitive packedFrom', () => {
  const [k, n] = [40, 72];

  for (const transB of [false, true]) {
    it(`packs B from another primitive of the node, whatever route either took (transB ${transB})`, () => {
      const b = seededFloats(k * n, transB ? 2 : 1);
      const bDims = transB ? [n, k] : [k, n];
      const c = seededFloats(n, 3);
      // Many rows, one row at 2 threads (the column split where it applies), rows again, one thread.
      const first = new binding!.GemmPrimitive!({ aDims: [64, k], bDims, transB, b: b.slice(), cDims: [n], c, threads: 2 });
      const chain: Array<[GemmPrimitive, number]> = [[first, 64]];
      for (const [rows, threads] of [[1, 2], [3, 2], [1, 1]] as const) {
        chain.push([new binding!.GemmPrimitive!({ aDims: [rows, k], bDims, transB, packedFrom: chain[chain.length - 1][0], cDims: [n], c, threads }), rows]);
      }
      try {
        for (const [gemm, rows] of chain) {
          expect(gemm.weightsPacked).toBe(true);
          const a = seededFloats(rows * k, 10 + rows);
          const y = new Float32Array(rows * n).fill(Number.NaN);
          gemm.runSync(a, null, null, y);
          expectCloseArrays(y, referenceGemm({ a, m: rows, k, b, n, transB, c }), 1e-4, `${rows} rows (${gemm.implementation})`);
        }
      } finally {
        for (const [gemm] of chain) gemm.dispose();
      }
    });
  }

  it('refuses a packedFrom that cannot serve', () => {
    const b = seededFloats(k * n, 4);
    const donor = new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n], b });
    const unpacked = new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n] });
    try {
      expect(() => new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n], b, packedFrom: donor })).toThrow(/b and options.packedFrom are exclusive/);
      expect(() => new binding!.GemmPrimitive!({ aDims: [4, n], bDims: [n, k], packedFrom: donor })).toThrow(/packedFrom holds B \[40, 72\], not \[72, 40\]/);
      expect(() => new binding!.GemmPrimitive!({ aDims: [4, n], bDims: [k, n], transB: true, packedFrom: donor })).toThrow(/not \[40, 72\] \(transB\)/);
      expect(() => new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n], packedFrom: unpacked })).toThrow(/did not pack its B/);
      expect(() => new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n], packedFrom: {} as never })).toThrow(/packedFrom must be a GemmPrimitive/);
    } finally {
      donor.dispose();
      unpacked.dispose();
    }
    expect(() => new binding!.GemmPrimitive!({ aDims: [4, k], bDims: [k, n], packedFrom: donor })).toThrow(/disposed/);
  });
});

describe.skipIf(!hasNative)('Gemm with symbolic rows in a session', () => {
  const [k, n] = [48, 80];

  for (const form of [
    { transB: 0, c: 'bias' as const },
    { transB: 1, c: 'none' as const },
    { transB: 1, c: 'scaled' as const },
  ]) {
    it(`packs B at creation, releases the model's copy and serves every row count (transB ${form.transB}, C ${form.c})`, async () => {
      const b = seededFloats(k * n, 21 + form.transB);
      const c = seededFloats(n, 23);
      const [alpha, beta] = form.c === 'scaled' ? [0.5, 2] : [1, 1];
      // A session takes ownership of its model (and drops released constants from it): one model each.
      const model = () => buildModel({
        inputs: [['x', 'float32', ['rows', k]]],
        outputs: [['y', 'float32']],
        initializers: {
          w: new Tensor('float32', b.slice(), form.transB ? [n, k] : [k, n]),
          ...(form.c === 'none' ? {} : { c: new Tensor('float32', c.slice(), form.c === 'bias' ? [n] : [1, n]) }),
        },
        nodes: [{ op: 'Gemm', inputs: form.c === 'none' ? ['x', 'w'] : ['x', 'w', 'c'], outputs: ['y'], attributes: { transB: form.transB, alpha: { float: alpha }, beta: { float: beta } } }],
      });
      for (const threads of [1, 2]) {
        const s = await InferenceSession.fromModel(model(), { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: 'disabled', intraOpNumThreads: threads });
        try {
          expect(s.placement.nodes[0].implementation).toBe('onednn');
          expect(s.optimization.memory?.releasedConstantBytes).toBe(4 * k * n);
          for (const rows of [1, 3, 1, 7, 0, 2]) {
            const x = seededFloats(rows * k, 30 + rows);
            const y = (await s.run({ x: new Tensor('float32', x, [rows, k]) })).y as Tensor;
            expect(y.dims).toEqual([rows, n]);
            const expected = referenceGemm({ a: x, m: rows, k, b, n, transB: form.transB === 1, c: form.c === 'none' ? undefined : c, alpha, beta });
            expectCloseArrays(y.data as Float32Array, expected, 1e-4, `${threads} threads, ${rows} rows`);
          }
          await expect(s.run({ x: new Tensor('float32', seededFloats(2 * (k + 1), 40), [2, k + 1]) })).rejects.toThrow(/expects shape \[rows, 48\], got \[2, 49\]/);
        } finally {
          await s.release();
        }
      }
    });
  }
});

describe.skipIf(!hasNative)('the Gemm placement names the route', () => {
  const [k, n] = [48, 80];
  const model = (rows: number | string, alpha: number) => buildModel({
    inputs: [['x', 'float32', [rows, k]]],
    outputs: [['y', 'float32']],
    initializers: { w: new Tensor('float32', seededFloats(k * n, 5), [k, n]), c: new Tensor('float32', seededFloats(n, 6), [n]) },
    nodes: [{ op: 'Gemm', inputs: ['x', 'w', 'c'], outputs: ['y'], attributes: { alpha: { float: alpha } } }],
  });

  // The skinny kernel takes up to 4 rows at alpha 1; a symbolic batch may bring more, so oneDNN is named there.
  for (const [rows, alpha, expected] of [[2, 1, 'skinny'], [2, 0.5, 'onednn'], [9, 1, 'onednn'], ['rows', 1, 'onednn']] as const) {
    it(`${rows} rows, alpha ${alpha}: ${expected}`, async () => {
      const s = await InferenceSession.fromModel(model(rows, alpha), { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })], graphOptimizationLevel: 'disabled' });
      try {
        expect(s.placement.nodes[0].implementation).toBe(expected);
      } finally {
        await s.release();
      }
    });
  }
});
