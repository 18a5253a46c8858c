// Child process of blas-cache.mjs: runs the GEMM_CACHE_PROBLEMS through blasPreparedGemm (the plans'
// path: algorithm search or cached choice, then the launch) with the GEMM choice cache in argv[2],
// checks each result against a CPU reference, and prints one JSON line:
//   { results: [{ choice, biasFused, error }], stats }   error: the worst |got-want| / (atol + rtol|want|)
// A fresh process has an empty in-memory cache, so whatever it does not search came from the file.
import { fileURLToPath } from 'node:url';
import { f16BitsToF32, f32ToF16Bits } from './kernels-reference.mjs';
import { gpu, rng, randomF32, skip, upload } from './runtime-harness.mjs';

/** BERT-like shapes (where cublasLt's split-K tends to beat cublasGemmEx), a fused-bias case, and alpha/beta. */
export const GEMM_CACHE_PROBLEMS = [
  { dtype: 'float32', m: 128, n: 768, k: 768, bias: true },
  { dtype: 'float32', m: 64, n: 768, k: 3072 },
  { dtype: 'float16', m: 128, n: 768, k: 768, bias: true },
  { dtype: 'float32', m: 33, n: 65, k: 200, transB: true, alpha: 0.5, beta: 1 },
];

function reference({ m, n, k, transB, alpha = 1, beta = 0 }, a, b, c, bias) {
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; ++i) {
    for (let j = 0; j < n; ++j) {
      let sum = 0;
      for (let t = 0; t < k; ++t) sum += a[i * k + t] * (transB ? b[j * k + t] : b[t * n + j]);
      out[i * n + j] = alpha * sum + beta * c[i * n + j] + (bias ? bias[j] : 0);
    }
  }
  return out;
}

/** Runs GEMM_CACHE_PROBLEMS[index] through blasPreparedGemm with the cache in `cacheDir`. */
export function runCacheProblem(index, cacheDir) {
  const problem = GEMM_CACHE_PROBLEMS[index];
  const { binding } = gpu;
  const { dtype, m, n, k } = problem;
  const half = dtype === 'float16';
  const rand = rng(1000 + index);
  const quant = (array) => (half ? array.map((v) => f16BitsToF32(f32ToF16Bits(v))) : array);
  const toDevice = (array) => upload(half ? Uint16Array.from(array, f32ToF16Bits) : array);
  const a = quant(randomF32(m * k, rand));
  const b = quant(randomF32(k * n, rand));
  const c = quant(randomF32(m * n, rand));
  const bias = problem.bias ? quant(randomF32(n, rand)) : undefined;
  const [da, db, dc] = [a, b, c].map(toDevice);
  const dbias = bias && toDevice(bias);
  const { choice, biasFused } = binding.blasPreparedGemm({ ...problem, bias: dbias, a: da, b: db, c: dc, cacheDir });
  const raw = half ? new Uint16Array(m * n) : new Float32Array(m * n);
  dc.download(raw);
  const got = half ? Float32Array.from(raw, f16BitsToF32) : raw;
  const want = reference(problem, a, b, c, bias);
  const { atol, rtol } = half ? { atol: 2e-2, rtol: 1e-2 } : { atol: 1e-3, rtol: 1e-3 };
  let error = 0;
  for (let i = 0; i < want.length; ++i) {
    const ratio = Math.abs(got[i] - want[i]) / (atol + rtol * Math.abs(want[i]));
    error = Number.isNaN(ratio) ? Infinity : Math.max(error, ratio);
  }
  for (const buffer of [da, db, dc, dbias]) buffer?.free();
  return { choice, biasFused, error };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (skip) throw new Error(`no device: ${skip}`);
  const cacheDir = process.argv[2] ?? '-';
  const results = GEMM_CACHE_PROBLEMS.map((_, i) => runCacheProblem(i, cacheDir));
  console.log(JSON.stringify({ results, stats: gpu.binding.dnnAlgoCacheStats('gemm') }));
}
