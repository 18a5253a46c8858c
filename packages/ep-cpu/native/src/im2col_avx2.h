// AVX2+FMA stages of the im2col convolution (im2col_conv.h) on nChw8c tensors: gather each output
// pixel's receptive field into a row, and turn the GEMM's [pixel][output channel] result into nChw8c
// with the fused epilogue. The GEMM between them is winograd::PackedGemm. No threading inside.
#pragma once

#include <cstdint>

#include "conv2d_sizes.h"
#include "winograd_avx2.h"

namespace switchyard::im2col {

constexpr int kBlock = winograd::kBlock;

struct Geometry : Conv2dSizes {
  int64_t kernelH, kernelW, strideH, strideW, dilationH, dilationW;
  // A row's length: every (channel block, tap, channel lane) of one receptive field.
  int64_t depth() const { return inChannels * kernelH * kernelW; }
  int64_t pixels() const { return outH * outW; }
};

// Output pixels [first, first + count) of one image (src nChw8c) → rows [count][depth]: row element
// (cb · taps + tap) · 8 + lane is channel cb · 8 + lane at kernel tap `tap` (kh · kernelW + kw), or 0
// where the tap falls in the padding.
void GatherRows(const Geometry& g, const float* src, int64_t first, int64_t count, float* rows);

// Output channel blocks [firstBlock, firstBlock + blocks) of one image: C [pixels][outChannels] →
// dst (nChw8c), adding bias and the residual sum and applying the activation. `sum` may be dst itself.
void ScatterOutput(const Geometry& g, const float* c, int64_t firstBlock, int64_t blocks, const winograd::OutputEpilogue& e,
                   float* dst);

}  // namespace switchyard::im2col
