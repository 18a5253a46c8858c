// ONNX ConvTranspose on oneDNN's deconvolution primitive for one fixed configuration: V8-free, so it runs
// on any thread. Built once (primitive descriptor, primitive, reorders, packed weights) and executed many
// times; Execute is const and safe to call concurrently. Structured as ConvKernel (conv_kernel.h).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>

#include "algorithm_mode.h"
#include "memory_desc.h"
#include "post_ops.h"
#include "scratchpad.h"

namespace switchyard {

// ONNX ConvTranspose semantics: X [N, C, ...spatial] (1-3 spatial axes), W [C, M / group, ...kernel],
// dilations counted ONNX-style (1 = dense). Output size per axis:
//   stride · (in - 1) + outputPadding + (kernel - 1) · dilation + 1 - padsBegin - padsEnd
// The caller resolves auto_pad and output_shape into these (outputPadding may then exceed the stride:
// trailing outputs that no input reaches, which hold the bias).
struct ConvTransposeParams {
  Dims input;
  Dims weights;
  int64_t group = 1;
  Dims strides;        // empty → all 1
  Dims dilations;      // empty → all 1
  Dims padsBegin;      // empty → all 0
  Dims padsEnd;        // empty → all 0
  Dims outputPadding;  // empty → all 0
  bool hasBias = false;
  Epilogue epilogue;  // an activation after the bias (no sum), as a oneDNN post-op
  int threads = 0;    // <= 0: OpenMP default
  // Layouts of the caller's x and y (0 plain NCHW, 8/16 channel-blocked), as ConvParams: a layout that
  // matches the primitive's crosses with no reorder.
  int64_t srcBlock = 0;
  int64_t dstBlock = 0;
  // A kernel equal to its stride (no padding, dilation or groups): a 1x1 conv and a copy instead of oneDNN's
  // deconvolution (depth_to_space_deconv.h).
  AlgorithmMode depthToSpace = AlgorithmMode::kAuto;
};

class DepthToSpaceDeconv;

class ConvTransposeKernel {
 public:
  // Throws CodedError on invalid params and dnnl::error when oneDNN has no implementation.
  // `constWeights` / `constBias` (may be null) are copied into oneDNN's preferred layout now.
  ConvTransposeKernel(const ConvTransposeParams& params, const float* constWeights, const float* constBias);

  // `weights` / `bias` are read only when they were not packed at construction.
  void Execute(const float* src, const float* weights, const float* bias, float* dst) const;

  const ConvTransposeParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  int64_t srcElements() const { return DescElements(userSrc_); }
  int64_t dstElements() const { return DescElements(userDst_); }
  // The blocks (0 plain, 8/16, -1 other) of the layouts oneDNN chose: what avoids reorders.
  int64_t primitiveSrcBlock() const;
  int64_t primitiveDstBlock() const;
  bool weightsPacked() const { return depthToSpace_ || packedWeights_.has_value(); }
  bool biasPacked() const { return depthToSpace_ || packedBias_.has_value(); }
  std::string implementation() const;

 private:
  ConvTransposeParams params_;
  Dims outputDims_;
  dnnl::memory::desc userSrc_, userWeights_, userBias_, userDst_;
  dnnl::deconvolution_forward::primitive_desc pd_;
  dnnl::deconvolution_forward primitive_;
  std::optional<Reorder> srcReorder_, weightsReorder_, dstReorder_;
  std::optional<dnnl::memory> packedWeights_, packedBias_;
  // Set: runs instead of primitive_ (never created then); pd_ stays for primitiveLayouts.
  std::shared_ptr<const DepthToSpaceDeconv> depthToSpace_;
};

// Validates params and fills defaults; returns the output dims. Throws CodedError('INVALID_ARGUMENT').
Dims ConvTransposeOutputDims(ConvTransposeParams& params);

}  // namespace switchyard
