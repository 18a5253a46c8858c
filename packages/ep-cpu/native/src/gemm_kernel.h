// A oneDNN matmul serving ONNX Gemm: Y = alpha · op(A) · op(B) + beta · C, with op() an optional
// transpose (strided memory descriptors, no copy) and C broadcast to [M, N]. V8-free; built once,
// executed many times; Execute is const and safe to call concurrently.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithm_mode.h"
#include "memory_desc.h"
#include "pointwise_gemm.h"
#include "scratchpad.h"
#include "skinny_gemm.h"

namespace switchyard {

struct GemmParams {
  Dims a;  // [M, K], or [K, M] with transA
  Dims b;  // [K, N], or [N, K] with transB
  bool transA = false;
  bool transB = false;
  float alpha = 1.0f;
  float beta = 1.0f;
  bool hasC = false;
  Dims c;  // rank 0–2, unidirectionally broadcast to [M, N]
  int threads = 0;
  AlgorithmMode channelSplit = AlgorithmMode::kAuto;  // one row at 2+ threads: a 1x1 conv per thread over its columns
  AlgorithmMode skinny = AlgorithmMode::kAuto;        // at most SkinnyGemm::kMaxRows rows: the addon's streaming kernel
};

class GemmKernel {
 public:
  // `constB` / `constC` (may be null) are packed or copied now.
  GemmKernel(const GemmParams& params, const float* constB, const float* constC);

  // `b` / `c` are read only when they were not packed at construction.
  void Execute(const float* a, const float* b, const float* c, float* y) const;

  // Writes B back as it was given (params().transB: [N, K], else [K, N]) into `out`: another kernel of the
  // same node, built for another shape after the model's copy of B was released, packs from it.
  void UnpackB(float* out) const;
  const GemmParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  bool bPacked() const { return skinny_ != nullptr || packedB_.has_value() || pointwise_.has_value() || !columnParts_.empty(); }
  bool cPacked() const { return skinny_ != nullptr || !packedC_.empty() || (pointwise_ && pointwise_->biasPacked()) || !columnParts_.empty(); }
  // How C enters: none, as oneDNN's bias (alpha = beta = 1, C a row), or pre-filled dst + sum post-op.
  const char* cMode() const;
  std::string implementation() const;

 private:
  enum class CMode { kNone, kBias, kSum };
  void FillBroadcastC(const float* c, float* y) const;

  GemmParams params_;
  Dims outputDims_;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  CMode cMode_ = CMode::kNone;
  dnnl::memory::desc userA_, userB_, userBias_, userDst_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul primitive_;
  std::optional<dnnl::memory> packedB_;
  std::vector<float> packedC_;
  // The Linear-layer case (constant B, A not transposed, alpha 1, C absent or a bias row) runs as a
  // 1×1 convolution when oneDNN has a jit kernel for it (see pointwise_gemm.h).
  std::optional<PointwiseGemm> pointwise_;
  // A single row at 2+ threads: one single-threaded 1x1 conv per thread over its own columns of B (the
  // output-channel split of channel_split.h), instead of a matmul. Parts' first columns in columnStarts_.
  std::vector<std::unique_ptr<PointwiseGemm>> columnParts_;
  std::vector<int64_t> columnStarts_;
  // A few rows times a constant B (a batch-1 classifier, a decoder at one token): a stream over B in
  // panels (skinny_gemm.h), far ahead of oneDNN's blocking for reuse that is not there.
  std::unique_ptr<SkinnyGemm> skinny_;

  bool TrySplitColumns(const float* constB, const float* constC);
  bool TrySkinny(const float* constB, const float* constC);
};

// Validates shapes; returns [M, N]. Throws CodedError('INVALID_ARGUMENT').
Dims GemmOutputDims(const GemmParams& params);

}  // namespace switchyard
