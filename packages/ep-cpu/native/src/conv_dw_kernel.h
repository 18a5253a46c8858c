// A 1x1 convolution fused with the 3x3 depthwise convolution that reads its output (oneDNN's
// depthwise post-op), as in MobileNet's inverted residual blocks: expand 1x1 → act → dw 3x3 → act.
// The fused primitive computes the wide 1x1 output a few rows at a time into a small buffer and
// runs the depthwise conv over those rows, so the expanded activation never reaches memory and the
// pair costs one call instead of two.
//
// oneDNN 2.6 serves it for f32 in channel-blocked layouts (jit_1x1 on AVX2 / AVX-512) with the
// depthwise conv fixed to kernel 3, padding 1 (top/left), stride 1 or 2; output spatial size
// ceil(H / stride) x ceil(W / stride). Weights and biases are constants packed at construction.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "activation_pass.h"
#include "algorithm_mode.h"
#include "memory_desc.h"
#include "post_ops.h"
#include "scratchpad.h"

namespace switchyard {

struct ConvDwParams {
  Dims input;          // [N, C, H, W] of the 1x1 conv
  int64_t channels = 0;  // M: 1x1 output channels = depthwise groups (weights [M, C, 1, 1] and [M, 1, 3, 3])
  int64_t stride = 1;    // the depthwise conv's stride (1 or 2)
  bool hasBias = false;  // 1x1 bias
  bool hasDwBias = false;
  Epilogue pointwise;  // activation after the 1x1 conv (no sum)
  Epilogue depthwise;  // activation after the depthwise conv (no sum)
  int threads = 0;
  int64_t srcBlock = 0;  // caller layouts (0 plain, 8/16 channel-blocked)
  int64_t dstBlock = 0;
  AlgorithmMode channelSplit = AlgorithmMode::kAuto;  // small images: a fused conv per thread over its channels
};

class ConvDwKernel {
 public:
  // Throws CodedError on invalid params and dnnl::error when oneDNN has no fused implementation.
  // The weights are [M, C] (1x1) and [M, 9] (3x3 depthwise), row-major; biases [M] or null.
  ConvDwKernel(const ConvDwParams& params, const float* weights, const float* bias, const float* dwWeights,
               const float* dwBias);

  void Execute(const float* src, float* dst) const;

  const ConvDwParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  int64_t srcElements() const { return DescElements(userSrc_); }
  int64_t dstElements() const { return DescElements(userDst_); }
  std::string implementation() const;

 private:
  ConvDwParams params_;
  Dims outputDims_;
  // The depthwise activation, when the pass took it (activation_pass.h). The 1x1 conv's activation stays a
  // post-op: its output exists only inside oneDNN's fused primitive.
  ActivationPass pass_;
  dnnl::memory::desc userSrc_, userDst_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward primitive_;
  std::optional<Reorder> srcReorder_, dstReorder_;
  dnnl::memory weights_, bias_, dwWeights_, dwBias_;
  // Set: one single-threaded fused conv per thread over a slice of the channels runs instead of
  // primitive_ (channel_split.h says when and why).
  std::vector<std::unique_ptr<ConvDwKernel>> parts_;
  int64_t partElements_ = 0;  // dst floats between consecutive parts' slices

  bool TrySplitChannels(const float* weights, const float* bias, const float* dwWeights, const float* dwBias);
  void ExecuteFused(const float* src, float* dst) const;
};

}  // namespace switchyard
