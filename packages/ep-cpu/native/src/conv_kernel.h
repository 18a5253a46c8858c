// A oneDNN convolution for one fixed configuration: V8-free, so it runs on any thread.
// Built once (primitive descriptor, primitive, reorders, packed weights) and executed many times;
// Execute is const and allocates its temporaries per call, so concurrent executions are safe.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>

#include "activation_pass.h"
#include "memory_desc.h"
#include "post_ops.h"
#include "scratchpad.h"
#include "im2col_conv.h"
#include "winograd_conv.h"

namespace switchyard {

// ONNX Conv semantics: NC[D]H[W] input, M x C/group x k... weights, dilations counted ONNX-style
// (1 = dense), explicit begin/end pads per spatial axis.
struct ConvParams {
  Dims input;
  Dims weights;
  int64_t group = 1;
  Dims strides;    // empty → all 1
  Dims dilations;  // empty → all 1
  Dims padsBegin;  // empty → all 0
  Dims padsEnd;    // empty → all 0
  bool hasBias = false;
  Epilogue epilogue;      // FusedConv: + Z (sum) then activation, as oneDNN post-ops
  int threads = 0;        // <= 0: OpenMP default
  // Layouts of the caller's buffers (LayoutDesc: 0 = plain NCHW, 8/16 = channel-blocked). When one
  // matches the layout oneDNN picks, that tensor crosses with no reorder: consecutive convs keep
  // activations blocked (the CPU EP's blocked-layout pass) instead of reordering in and out each time.
  int64_t srcBlock = 0;
  int64_t dstBlock = 0;
  int64_t sumBlock = 0;
  // Both buffers plain: ask oneDNN for plain src/dst first instead of its preferred layout. On AVX-512 that
  // preference is NHWC, so a plain 1x1 conv paid a reorder on each side around brgconv; on plain layouts a
  // 1x1 conv runs as one GEMM. (Depth-to-space ConvTranspose sets it: see depth_to_space_deconv.h.)
  bool preferPlain = false;
  AlgorithmMode winograd = AlgorithmMode::kAuto;  // 3x3 stride-1 convs: Winograd instead of oneDNN (winograd_conv.h)
  AlgorithmMode im2col = AlgorithmMode::kAuto;    // strided convs: im2col + packed GEMM instead of oneDNN (im2col_conv.h)
  AlgorithmMode channelSplit = AlgorithmMode::kAuto;  // small images: a conv per thread over its output channels (channel_split.h)
  AlgorithmMode activationPass = AlgorithmMode::kAuto;  // Sigmoid / Swish: the addon's pass instead of the post-op (activation_pass.h)
};

class ConvKernel {
 public:
  // Throws CodedError on invalid params and dnnl::error when oneDNN has no implementation.
  // `constWeights` / `constBias` (may be null) are copied into oneDNN's preferred layout now.
  ConvKernel(const ConvParams& params, const float* constWeights, const float* constBias);

  // `weights` / `bias` are read only when they were not packed at construction. `sum` (Z, shaped
  // like dst) is read when the epilogue has a sum; it may be dst itself.
  void Execute(const float* src, const float* weights, const float* bias, const float* sum, float* dst) const;

  // As built: an activation the pass took is no longer in params().epilogue (see activationPass()).
  const ConvParams& params() const { return params_; }
  const ActivationPass& activationPass() const { return pass_; }
  const Dims& outputDims() const { return outputDims_; }
  // Float32 elements of the caller's src, dst and sum buffers in their layouts (padding included).
  int64_t srcElements() const { return DescElements(userSrc_); }
  int64_t dstElements() const { return DescElements(userDst_); }
  int64_t sumElements() const { return DescElements(userSum_); }
  // oneDNN's own src/dst layouts, as the block (0 plain, 8/16 blocked, -1 anything else): what a caller would
  // have to pass to avoid reorders.
  int64_t primitiveSrcBlock() const;
  int64_t primitiveDstBlock() const;
  bool weightsPacked() const { return trimmed_ || winograd_ || im2col_ || !parts_.empty() || packedWeights_.has_value(); }
  bool biasPacked() const {
    if (trimmed_) return trimmed_->biasPacked();
    if (winograd_) return winograd_->biasPacked();
    return im2col_ ? im2col_->biasPacked() : !parts_.empty() || packedBias_.has_value();
  }
  std::string implementation() const;
  // Whether UnpackWeights can give the packed weights back: oneDNN's own layouts (also split over
  // threads), not the Winograd-transformed ones (the addon's or oneDNN's) nor im2col's packed GEMM.
  bool weightsUnpackable() const;
  // Writes the packed weights back as ONNX's plain [M, C/group, k...] into `out`, for another kernel of
  // the same node built after the model's copy was released. Throws unless weightsUnpackable().
  void UnpackWeights(float* out) const;

 private:
  ConvParams params_;
  Dims outputDims_;
  ActivationPass pass_;  // run over dst after whichever conv below (the epilogue then has no activation)
  dnnl::memory::desc userSrc_, userWeights_, userBias_, userDst_, userSum_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward primitive_;
  std::optional<Reorder> srcReorder_, weightsReorder_, dstReorder_, sumReorder_;
  std::optional<dnnl::memory> packedWeights_, packedBias_;
  // At most one is set: it runs instead of primitive_ (never created then). trimmed_: the same conv
  // without the taps that read only padding (conv_tap_trim.h), built with the kept weights.
  std::unique_ptr<const ConvKernel> trimmed_;
  std::unique_ptr<const WinogradConv> winograd_;
  std::unique_ptr<const Im2colConv> im2col_;
  // Set: one single-threaded conv per thread, each over its own slice of output channels, runs instead of
  // primitive_ (channel_split.h says when and why).
  std::vector<std::unique_ptr<ConvKernel>> parts_;
  int64_t partElements_ = 0;  // dst/sum floats between consecutive parts' slices

  bool TrySplitByOutputChannels(const float* constWeights, const float* constBias);
  void ExecuteConv(const float* src, const float* weights, const float* bias, const float* sum, float* dst) const;
  void ExecuteParts(const float* src, const float* sum, float* dst) const;
};

// The block (0, 8, 16) whose LayoutDesc equals `desc`, or -1.
int64_t BlockOf(const dnnl::memory::desc& desc);

// Validates params and fills defaults; returns the output dims. Throws CodedError('INVALID_ARGUMENT').
Dims ConvOutputDims(ConvParams& params);

// What the addon's own conv algorithms (Winograd, im2col) need in common: an AVX2+FMA CPU, constant
// weights, a 2-D ungrouped conv with src, dst and sum (scale 1) blocked by 8, channel counts multiple
// of 8, and a non-empty output. `params` as ConvOutputDims left them; `outputDims` its result.
bool ServedByAvx2Blocked8(const ConvParams& params, const Dims& outputDims, bool constWeights);

// The channel counts, image sizes and leading padding of a 2-D conv (`params` as ConvOutputDims left them).
Conv2dSizes SizesOf(const ConvParams& params, const Dims& outputDims);

}  // namespace switchyard
