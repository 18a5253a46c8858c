// GPU test: the BLAS seam's GEMM (fp32, fp16 with fp32 accumulation; transposes, alpha/beta,
// leading dimensions, strided batches) against a CPU reference. Skips without a device or BLAS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f16BitsToF32, f32ToF16Bits } from './lib/kernels-reference.mjs';
import { assertClose, gpu, rng, randomF32, skip, upload } from './lib/runtime-harness.mjs';

const blasSkip = skip || (gpu.binding.blasInfo().available ? false : gpu.binding.blasInfo().reason);

/** Row-major reference: C = alpha op(A) op(B) + beta C, per batch. */
function gemmRef({ a, b, c, m, n, k, transA, transB, alpha = 1, beta = 0, batch = 1, strideA, strideB, strideC }) {
  const out = Float32Array.from(c);
  for (let p = 0; p < batch; ++p) {
    for (let i = 0; i < m; ++i) {
      for (let j = 0; j < n; ++j) {
        let sum = 0;
        for (let t = 0; t < k; ++t) {
          const av = transA ? a[p * strideA + t * m + i] : a[p * strideA + i * k + t];
          const bv = transB ? b[p * strideB + j * k + t] : b[p * strideB + t * n + j];
          sum += av * bv;
        }
        const index = p * strideC + i * n + j;
        out[index] = alpha * sum + beta * c[index];
      }
    }
  }
  return out;
}

function run(dtype, problem) {
  const { binding } = gpu;
  const rand = rng(problem.m * 131 + problem.n * 7 + problem.k);
  const batch = problem.batch ?? 1;
  const strideA = problem.strideA ?? problem.m * problem.k;
  const strideB = problem.strideB ?? problem.k * problem.n;
  const strideC = problem.m * problem.n;
  const quant = (array) => (dtype === 'float16' ? array.map((v) => f16BitsToF32(f32ToF16Bits(v))) : array);
  const a = quant(randomF32(strideA * (batch - 1) + problem.m * problem.k, rand));
  const b = quant(randomF32(strideB * (batch - 1) + problem.k * problem.n, rand));
  const c = quant(randomF32(strideC * batch, rand));
  const toDevice = (array) => upload(dtype === 'float16' ? Uint16Array.from(array, f32ToF16Bits) : array);
  const [da, db, dc] = [a, b, c].map(toDevice);
  binding.blasGemm({ ...problem, a: da, b: db, c: dc, dtype, batch, strideA, strideB, strideC: batch > 1 ? strideC : 0 });
  const raw = dtype === 'float16' ? new Uint16Array(c.length) : new Float32Array(c.length);
  dc.download(raw);
  const got = dtype === 'float16' ? Float32Array.from(raw, f16BitsToF32) : raw;
  const expected = gemmRef({ ...problem, a, b, c, batch, strideA, strideB, strideC });
  const tol = dtype === 'float16' ? { atol: 2e-2, rtol: 1e-2 } : { atol: 1e-4, rtol: 1e-4 };
  assertClose(got, expected, { ...tol, what: `${dtype} gemm ${JSON.stringify(problem)}` });
  for (const buffer of [da, db, dc]) buffer.free();
}

describe('blasGemm', { skip: blasSkip }, () => {
  for (const dtype of ['float32', 'float16']) {
    it(`${dtype}: shapes, transposes, alpha/beta`, () => {
      run(dtype, { m: 1, n: 1, k: 1 });
      run(dtype, { m: 17, n: 33, k: 9 });
      run(dtype, { m: 64, n: 48, k: 80, transA: true });
      run(dtype, { m: 31, n: 5, k: 70, transB: true, alpha: 0.5, beta: 2 });
      run(dtype, { m: 20, n: 24, k: 36, transA: true, transB: true, alpha: -1, beta: 1 });
    });
    it(`${dtype}: strided batches, with a broadcast B (stride 0)`, () => {
      run(dtype, { m: 9, n: 11, k: 13, batch: 4 });
      run(dtype, { m: 8, n: 16, k: 12, batch: 3, strideB: 0 });
    });
  }

  it('rejects operands that do not fit their buffers', () => {
    const { binding } = gpu;
    const small = new binding.DeviceBuffer(0, 16);
    assert.throws(() => binding.blasGemm({ a: small, b: small, c: small, m: 4, n: 4, k: 4 }), /needs 64 bytes, the buffer has 16/);
    small.free();
  });
});
