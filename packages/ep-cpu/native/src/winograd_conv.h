// Winograd F(4x4, 3x3) convolution: the CPU EP's path for 3x3, stride-1, undilated, ungrouped convs
// on nChw8c tensors. oneDNN 2.6 has Winograd only for AVX-512; on AVX2 its direct conv does 2.25x..4x
// the multiply-adds. ConvKernel builds one of these in place of its oneDNN primitive when the shape
// qualifies (and, in auto mode, when it measured faster); see WinogradConv::TryCreate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithm_mode.h"
#include "memory_desc.h"
#include "post_ops.h"
#include "winograd_avx2.h"

namespace switchyard {

struct ConvParams;  // conv_kernel.h

class WinogradConv {
 public:
  // Null when the conv is outside what this kernel serves (needs: rank 4, 3x3 kernel, stride 1,
  // dilation 1, group 1, channel counts multiple of 8, src/dst/sum blocked by 8, constant weights,
  // an AVX2+FMA CPU) or when `mode` prefers oneDNN.
  static std::unique_ptr<WinogradConv> TryCreate(const ConvParams& params, const Dims& outputDims,
                                                 const float* constWeights, const float* constBias, AlgorithmMode mode);

  // Whether TryCreate would build one (same rules), without transforming any weights.
  static bool Chooses(const ConvParams& params, const Dims& outputDims, bool constWeights, AlgorithmMode mode);

  // `bias` is read only when it was not packed at construction (and the conv has one).
  void Execute(const float* src, const float* bias, const float* sum, float* dst) const;

  bool biasPacked() const { return !bias_.empty(); }
  std::string implementation() const { return "winograd_f4x4:avx2"; }

 private:
  WinogradConv(const winograd::Geometry& geometry, const Epilogue& epilogue, bool hasBias);
  // The three stages over the images of `g` (a group of the batch: src, dst and the sum offset to it).
  void RunImages(const winograd::Geometry& g, const float* src, const winograd::OutputEpilogue& epilogue, float* dst) const;

  winograd::Geometry geometry_;
  Epilogue epilogue_;
  bool hasBias_;
  // Transformed and packed: [36][outChannels / 16 panels][inChannels][16] (a last panel of 8 is 8 wide).
  std::vector<float> weights_;
  std::vector<float> bias_;     // empty unless constant
};

}  // namespace switchyard
