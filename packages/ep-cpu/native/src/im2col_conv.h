// im2col convolution: the CPU EP's path for strided convs on nChw8c tensors. oneDNN 2.6's AVX2 direct
// conv runs ResNet-50's 3x3 stride-2 convs at a third of the rate it reaches on 1x1 convs (its register
// blocking runs along output rows, and these have 7..28 pixels). Here each output pixel's receptive
// field is gathered into a row, one GEMM against weights packed once does every multiply-add, and the
// epilogue is fused into the pass that writes nChw8c. ConvKernel builds one in place of its oneDNN
// primitive when the shape qualifies (and, in auto mode, where it measured faster); see TryCreate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithm_mode.h"
#include "im2col_avx2.h"
#include "memory_desc.h"
#include "post_ops.h"

namespace switchyard {

struct ConvParams;  // conv_kernel.h

class Im2colConv {
 public:
  // Null when the conv is outside what this kernel serves (needs: rank 4, group 1, channel counts
  // multiple of 8, src/dst/sum blocked by 8, constant weights, an AVX2+FMA CPU) or when `mode`
  // prefers oneDNN.
  static std::unique_ptr<Im2colConv> TryCreate(const ConvParams& params, const Dims& outputDims, const float* constWeights,
                                               const float* constBias, AlgorithmMode mode);

  // Whether TryCreate would build one (same rules), without packing any weights.
  static bool Chooses(const ConvParams& params, const Dims& outputDims, bool constWeights, AlgorithmMode mode);

  // `bias` is read only when it was not packed at construction (and the conv has one).
  void Execute(const float* src, const float* bias, const float* sum, float* dst) const;

  bool biasPacked() const { return !bias_.empty(); }
  std::string implementation() const { return "im2col_gemm:avx2"; }

 private:
  Im2colConv(const im2col::Geometry& geometry, int64_t batch, const Epilogue& epilogue, bool hasBias);
  // Gather, GEMM and scatter over `images` consecutive images (src, dst and the sum offset to the first).
  void RunImages(int64_t images, const float* src, const winograd::OutputEpilogue& epilogue, float* dst) const;

  im2col::Geometry geometry_;
  int64_t batch_;
  Epilogue epilogue_;
  bool hasBias_;
  // Packed for winograd::PackedGemm: [outChannels / 16 panels][depth][16] (a last panel of 8 is 8 wide),
  // depth ordered like GatherRows' rows.
  std::vector<float> weights_;
  std::vector<float> bias_;  // empty unless constant
};

}  // namespace switchyard
