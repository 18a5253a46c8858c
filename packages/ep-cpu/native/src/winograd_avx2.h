// The three stages of a Winograd F(4x4, 3x3) convolution on nChw8c tensors, as AVX2+FMA code
// (winograd_avx2.cc is the only file built with -mavx2 -mfma; callers check the CPU first).
//
// A 6x6 input tile d and a 3x3 filter g give a 4x4 output tile Y = Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A
// (Lavin & Gray 2015, interpolation points 0, ±1, ±2, ∞). Over channels the elementwise product
// becomes 36 independent GEMMs, one per element of the 6x6 transformed tile:
//   V[e][tile][c] (input transform) × U[e][c][k] (weights, transformed once) → M[e][tile][k]
// and the output transform turns M back into 4x4 tiles, applying bias, the residual sum and the
// activation on the way, so the result needs no further pass.
#pragma once

#include <cstdint>

#include "conv2d_sizes.h"
#include "post_ops.h"

namespace switchyard::winograd {

constexpr int kOutTile = 4;      // output tile edge
constexpr int kInTile = 6;       // input tile edge (kOutTile + 3 - 1)
constexpr int kElements = 36;    // kInTile², one GEMM each
constexpr int kBlock = 8;        // channels per nChw8c block (one AVX2 register)
constexpr int kPanel = 16;       // output channels per packed weight panel (two registers)

struct Geometry : Conv2dSizes {
  int64_t batch, tilesH, tilesW, tiles;  // tiles = batch · tilesH · tilesW
};

struct OutputEpilogue {
  const float* bias;  // [outChannels] or null
  const float* sum;   // nChw8c like dst, or null; may be dst itself
  Activation activation;
  float alpha, beta;
};

// The three stages, over a range of tiles (tile t = (n · tilesH + th) · tilesW + tw); no threading
// inside: winograd_conv.cc schedules them. Tile `first + i`'s transformed element e lives at row i of
// matrix e, `elementStride` floats after matrix e - 1.

// src (nChw8c) → V [kElements][count][inChannels], zero padding applied.
void InputTransform(const Geometry& g, const float* src, int64_t first, int64_t count, float* v, int64_t elementStride);

// One element's product for one panel of kPanel output channels: V rows [rows][inChannels] × that
// element's U → M [rows][outChannels] (columns of the panel only). U holds, per element, panels of
// kPanel output channels ([inChannels][kPanel] each; the last one kBlock wide when
// outChannels % kPanel == kBlock); `u` points at the element's first panel.
void Gemm(const Geometry& g, const float* v, int64_t rows, const float* u, int64_t panel, float* m);

// The product behind Gemm, for any A: A [rows][depth] × one panel of a packed B → C [rows][columns]
// (that panel's columns only). B is packed as panels of kPanel columns, [depth][kPanel] each, the last
// kBlock wide when columns % kPanel == kBlock. The im2col conv (im2col_conv.h) uses it too.
void PackedGemm(const float* a, int64_t rows, int64_t depth, const float* packed, int64_t columns, int64_t panel, float* c);

// M → dst (nChw8c), with bias, sum and activation fused.
void OutputTransform(const Geometry& g, const float* m, int64_t first, int64_t count, int64_t elementStride,
                     const OutputEpilogue& epilogue, float* dst);

}  // namespace switchyard::winograd
