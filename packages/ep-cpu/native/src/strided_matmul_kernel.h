// A oneDNN matmul whose operands and result are transposed views of dense row-major buffers:
//   Y = permute(scale · (permute(A, permA) × permute(B, permB)) + mask, permY)
// (ONNX Transpose semantics for each permute: out.dims[i] = in.dims[perm[i]]). The permutations
// become memory-descriptor strides, so no transposed copy is ever made; the scale is oneDNN's output
// scale and the mask a binary-add post-op (or, where oneDNN has only its reference matmul for the
// mask's broadcast, an add after the gemm). This is the attention block's Q·Kᵀ/√d + mask and P·V.
// V8-free, built once per shape, Execute is const and safe to call concurrently.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <vector>

#include "memory_desc.h"

namespace switchyard {

struct StridedMatMulParams {
  Dims a;                    // A as stored (dense row-major), rank >= 2
  Dims b;                    // B as stored; same rank as A
  std::vector<int> permA;    // empty: identity
  std::vector<int> permB;
  std::vector<int> permY;    // applied to the product (after scale and mask); identity when hasMask
  float scale = 1.0f;
  bool hasMask = false;
  Dims mask;                 // rank <= rank(A); each dim 1 or the product's (right-aligned); never widens
  int threads = 0;           // <= 0: OpenMP default
};

class StridedMatMulKernel {
 public:
  explicit StridedMatMulKernel(const StridedMatMulParams& params);

  // `mask` is read only when built with hasMask. Buffers are dense row-major in their stored shapes.
  void Execute(const float* a, const float* b, const float* mask, float* y) const;

  const StridedMatMulParams& params() const { return params_; }
  // Y's dims (the product's dims permuted by permY).
  const Dims& outputDims() const { return outputDims_; }
  std::string implementation() const { return std::string(pd_.impl_info_str()) + (addMaskAfter_ ? " + mask added after" : ""); }

 private:
  StridedMatMulParams params_;
  Dims outputDims_;
  dnnl::memory::desc a_, b_, y_, mask_;
  // True when the mask is added after the gemm (AddMask) instead of as its post-op: oneDNN 2.6 serves
  // some broadcasts of a binary post-op only with its reference matmul.
  bool addMaskAfter_ = false;
  Dims product_, maskDims_;  // the product's dims and the mask's, padded to its rank
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul primitive_;
};

}  // namespace switchyard
