// A oneDNN matmul for one fixed pair of shapes (ONNX MatMul, numpy semantics for rank >= 2):
// V8-free, built once, executed many times; Execute is const and safe to call concurrently.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>

#include "memory_desc.h"
#include "pointwise_gemm.h"
#include "post_ops.h"
#include "scratchpad.h"

namespace switchyard {

// Both operands have rank >= 2 (the caller turns ONNX's 1-D operands into matrices). Batch dims
// broadcast numpy-style: ranks are left-padded with 1s, then each batch dim must match or be 1.
struct MatMulParams {
  Dims a;
  Dims b;
  bool hasBias = false;  // bias of N elements, broadcast over every row (MatMul + Add fused)
  Epilogue epilogue;     // activation only (no sum)
  int threads = 0;       // <= 0: OpenMP default
};

class MatMulKernel {
 public:
  // `constB` (may be null) is copied now into the layout oneDNN prefers for weights; `constBias` too.
  MatMulKernel(const MatMulParams& params, const float* constB, const float* constBias);

  // `b` / `bias` are read only when they were not packed at construction.
  void Execute(const float* a, const float* b, const float* bias, float* y) const;

  const MatMulParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  bool bPacked() const { return packedB_.has_value() || pointwise_.has_value(); }
  // Writes the packed B back in plain row-major order (params().b) into `out`: another kernel of the same
  // node, built for another shape after the model's copy of B was released, packs from it.
  void UnpackB(float* out) const;
  bool biasPacked() const { return packedBias_.has_value() || (pointwise_ && pointwise_->biasPacked()); }
  std::string implementation() const;

 private:
  MatMulParams params_;
  Dims outputDims_;
  dnnl::memory::desc userA_, userB_, userBias_, userDst_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul primitive_;
  std::optional<dnnl::memory> packedB_, packedBias_;
  std::shared_ptr<void> packedBStorage_;  // owns packedB_'s bytes when it is a plain copy (see the constructor)
  // A constant 2-D B is served as a 1×1 convolution when oneDNN has a jit kernel for it (see
  // pointwise_gemm.h); then none of the matmul members above are built.
  std::optional<PointwiseGemm> pointwise_;
};

// Validates shapes and returns the output dims (batch dims broadcast, then M, N).
Dims MatMulOutputDims(const MatMulParams& params);

}  // namespace switchyard
