// Y[M, N] = activation(A[M, K] · B + bias) with a constant B, run as a oneDNN 1×1 convolution.
//
// Why not oneDNN's matmul: oneDNN 2.6 on AVX2 machines (no AVX-512) serves f32 matmul and inner
// product with its gemm:jit path. Measured at one thread on BERT-base's products (A [128, 768]):
// gemm:jit 40–46 GFLOP/s, the jit 1×1 convolution on the same numbers 55–70 GFLOP/s. A row-major
// [M, K] matrix already is an NHWC image of M pixels with K channels, and B holds the 1×1 filters,
// so only the weights are repacked (once, here).
// V8-free; built once, executed many times; Execute is const and safe to call concurrently.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>

#include "memory_desc.h"
#include "post_ops.h"
#include "scratchpad.h"

namespace switchyard {

struct PointwiseGemmParams {
  int64_t m = 0, k = 0, n = 0;
  bool transB = false;  // B stored [N, K] (Gemm's transB) instead of [K, N]
  bool hasBias = false;  // a row of N added to every output row
  Epilogue epilogue;     // activation only
  int threads = 0;
};

// Whether a product of `m` rows keeps `threads` threads busy as a 1x1 convolution, which splits its
// work over rows (pixels) only: a single row runs on one thread however many there are (a batch-1
// classifier's [1, 1280] x [1280, 1000]: 0.23 ms at 1 and at 2 threads), where matmul also splits N
// (in a hot loop at 2 threads: 67 us against 116 us). `threads` <= 0: OpenMP's default.
bool PointwiseSplitsWell(int64_t m, int threads);

class PointwiseGemm {
 public:
  // `constB` is required (packed now); `constBias` may be null (then Execute takes it).
  PointwiseGemm(const PointwiseGemmParams& params, const float* constB, const float* constBias);

  void Execute(const float* a, const float* bias, float* y) const;
  bool biasPacked() const { return packedBias_.has_value(); }
  // Writes B back in the order it was given (params().transB: [N, K], else [K, N]) into `out`.
  void UnpackB(float* out) const;
  std::string implementation() const;

  // Whether oneDNN serves this product with a jit 1×1 kernel: only then is this route faster than
  // matmul (a reference or gemm-based convolution is not).
  bool Fast() const;

 private:
  PointwiseGemmParams params_;
  dnnl::memory::desc userSrc_, userDst_, userBias_, userWeights_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward primitive_;
  std::optional<Reorder> srcReorder_, dstReorder_;
  dnnl::memory packedWeights_;
  std::optional<dnnl::memory> packedBias_;
};

}  // namespace switchyard
