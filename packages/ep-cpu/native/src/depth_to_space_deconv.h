// ConvTranspose whose kernel equals its stride (no padding, no dilation, one group): the upsampling head of
// FPNs, UNets and DB-style detectors (k2 s2). Its windows never overlap, so each input pixel writes its own
// k0 x k1 block of outputs: that is a 1x1 convolution to K · M channels (K = the kernel's size) followed by a
// depth-to-space copy. oneDNN 2.6's deconvolution is 2-4x slower on such shapes (one core, best of 9: k2 s2
// 64 → 32 channels at 160x160, 23.5 vs 9.6 ms on AVX-512, 27.1 vs 10.8 on AVX2; 256 → 128 at 40x40, 11.1 vs
// 3.0; k4 s4 32 → 16 at 80x80, 7.4 vs 2.4; no slower at 8 → 8 at 20x20), so ConvTransposeKernel runs this
// instead wherever it applies. With plain X and Y the 1x1 conv is asked for plain layouts (ConvParams::preferPlain):
// oneDNN then runs it as a GEMM; its own choice on AVX-512 (NHWC brgconv) reordered X in and the staged output
// out, which costs most with few output channels (a DB head's 24 → 1 at 320x320, best of 48 runs, one thread,
// shared machine: 1.47 ms before, 0.55-0.67 ms after; onnxruntime 1.0-1.2 ms).
//
// The conv is a ConvKernel (weights permuted to (kernel position, M) order and packed once, bias repeated per
// position, the activation as its post-op); its output goes to a per-thread staging buffer in Y's layout
// (plain, or blocked by b when b divides M), and the copy moves whole rows (plain: interleaving the K_w
// positions) or whole b-lane vectors (blocked) into Y.
#pragma once

#include <memory>
#include <string>

#include "algorithm_mode.h"
#include "conv_kernel.h"
#include "conv_transpose_kernel.h"

namespace switchyard {

class DepthToSpaceDeconv {
 public:
  // Whether `params` (as ConvTransposeOutputDims left them) take this path under `mode`: the geometry above,
  // constant weights (and bias, if any), and Y plain or blocked by a block that divides M.
  static bool Applies(const ConvTransposeParams& params, bool constWeights, bool constBias);
  static bool Chooses(const ConvTransposeParams& params, bool constWeights, bool constBias, AlgorithmMode mode);

  // Null when Chooses() says no. `constWeights` is ONNX's W [C, M, k...]; `constBias` M values or null.
  static std::unique_ptr<const DepthToSpaceDeconv> TryCreate(const ConvTransposeParams& params, const Dims& outputDims, const float* constWeights,
                                                             const float* constBias, AlgorithmMode mode);

  DepthToSpaceDeconv(const ConvTransposeParams& params, const Dims& outputDims, const float* constWeights, const float* constBias);

  void Execute(const float* src, float* dst) const;
  std::string implementation() const { return "depth_to_space(" + conv_->implementation() + ")"; }
  // The conv's src layout (what a caller passes to avoid a reorder); Y's layout is served either way, so the
  // dst block reported is the one asked for when the conv writes it as is.
  int64_t primitiveSrcBlock() const { return conv_->primitiveSrcBlock(); }
  int64_t primitiveDstBlock() const { return conv_->primitiveDstBlock(); }

 private:
  ConvTransposeParams params_;
  Dims outputDims_;
  std::unique_ptr<ConvKernel> conv_;
  Dims kernel3_, input3_;  // the kernel and input image as 3-D (leading 1s for 1-D and 2-D)
  int64_t stagedElements_ = 0;

  void CopyPlain(const float* staged, float* dst) const;
  void CopyBlocked(const float* staged, float* dst) const;
};

}  // namespace switchyard
