// Int8Conv: an exact integer convolution (ONNX ConvInteger's int32 result) on oneDNN's int8 conv:
// Σ (x - x_zp)(w - w_zp) over each receptive field, for uint8/int8 x and w, a runtime x zero point and
// constant per-tensor or per-output-channel weight zero points. V8-free, built once per input shape;
// Run is const and safe to call concurrently (per-thread buffers).
//
// How it stays exact (each step measured against the TS kernel; int8-conv-native.test.ts):
//  - x arrives as Int8InputLayout (int8_input.h): uint8, padded with its zero point, channels-last;
//    oneDNN convolves it without padding and without zero points: A = Σ x·w_s8.
//  - W is s8 (uint8 shifted by 128, its zero point too; int8_weights.h), so
//      Σ (x - x_zp)(w_s8 - w_zp) = A - x_zp · Σ w_s8[m] - w_zp[m] · Σ (x - x_zp),
//    the last sum being per group over the receptive field (a pass over x, cheap next to the conv).
//  - Without VNNI, weights past ±64 run as 7-bit halves (int8_weights.h).
//  - oneDNN 2.6's int8 kernels other than brgemm-based ones (brgconv*, brdgmm*) round their int32 sums
//    through float32 when storing them, so past 2^24 they are off. Where such a kernel is chosen and the
//    weights allow a sum of 2^24 (255 · Σ|w| over a receptive field), each group's input channels are
//    split into chunks small enough, convolved separately and summed here in int32.
// All int32 arithmetic wraps, as ConvInteger's int32 output would.
//
// The results come out in tiles transposed to [channel][pixel] rows, for the caller's epilogue to write
// the planar output it wants (int32, requantized 8-bit, or scaled float).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "int8_input.h"
#include "int8_weights.h"
#include "memory_desc.h"
#include "scratchpad.h"

namespace switchyard {

struct Int8ConvParams {
  Dims input;    // X: [N, C, spatial...], spatial rank 1-3
  Dims weights;  // W: [M, C / group, kernel...]
  int64_t group = 1;
  Dims strides;      // empty: all 1
  Dims dilations;    // ONNX counting (1 = dense); empty: all 1
  Dims padsBegin;    // empty: all 0
  Dims padsEnd;
  bool inputSigned = false;    // x is int8 (else uint8)
  bool weightsSigned = false;  // W is int8 (else uint8)
  WeightSplit split = WeightSplit::kAuto;
  int threads = 0;  // <= 0: OpenMP default
};

// Checks the shapes (throws CodedError INVALID_ARGUMENT), fills the defaults and returns Y's dims [N, M, ...].
Dims Int8ConvOutputDims(Int8ConvParams& params);

class Int8Conv {
 public:
  // `weights` has M·C/group·kernel elements of W's type; `zeroPoints` 0, 1 or M elements of W's type.
  Int8Conv(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount);

  const Int8ConvParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  const Int8InputLayout& inputLayout() const { return *layout_; }
  int64_t batch() const { return params_.input[0]; }
  int64_t inputChannels() const { return params_.input[1]; }
  int64_t outputChannels() const { return params_.weights[0]; }
  int64_t outputPixels() const { return outputPixels_; }
  // oneDNN's implementation, plus how the weights / channels were split, if they were.
  std::string implementation() const;

  static constexpr int64_t kTilePixels = 128;  // a multiple of 4

  // Convolves `x` (filled per inputLayout(); xZero is the zero point as stored there, i.e. shifted for
  // int8 inputs) and calls emit(n, p0, count, tile) for every tile of pixels [p0, p0 + count) of image n,
  // on the team's threads: tile[m * count + i] is the exact result of output channel m at pixel p0 + i.
  template <typename Emit>
  void Run(const uint8_t* x, int32_t xZero, Emit&& emit) const;

 private:
  // One oneDNN convolution: one chunk of input channels, `images` images, `rows` output rows.
  struct Conv {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward primitive;
    dnnl::memory weights;
  };
  // The convolutions (one per chunk) of a band of `rows` output rows.
  struct Band {
    int64_t rows;
    std::vector<Conv> chunks;
  };
  // The window sums of (x - x_zp) per group [N][group][pixels] (when W has zero points; the memory owns
  // large buffers) and the zero point as a wrapping multiplier.
  struct Sums {
    dnnl::memory memory;
    const int32_t* data;
    uint32_t xZero;
  };
  // Where FillTile reads one band's raw results: chunk k of pixel p0 of image n at raw + k · perChunk.
  struct RawView {
    const int32_t* at;
    int64_t perChunk;
  };

  void PlanBands(const std::vector<int8_t>& convWeights, const std::vector<int64_t>& chunkStarts);
  Conv BuildConv(const std::vector<int8_t>& convWeights, int64_t localBegin, int64_t localEnd, int64_t images, int64_t rows) const;
  std::vector<int64_t> ChunkStarts(const std::vector<int8_t>& convWeights) const;
  bool StoresExactly() const;

  Sums ComputeSums(const uint8_t* x, int32_t xZero) const;
  void WindowSums(const uint8_t* x, int32_t xZero, int32_t* channelSums, int32_t* sums) const;
  // Convolves band `band` of images [image0, image0 + bandImages_) into `raw` ([chunk][images][pixels][convChannels_]).
  void ConvolveBand(const uint8_t* x, int64_t image0, int64_t band, int32_t* raw) const;
  void FillTile(RawView raw, const Sums& sums, int64_t n, int64_t p0, int64_t count, int32_t* tile, int32_t* scratch) const;
  // Calls fn(context, n, p0, count, tile, scratch) for the tiles of images [image0, image0 + images) and
  // pixels [pBegin, pEnd) on the team's threads; tile holds M and scratch 2 · convChannels_ rows of kTilePixels.
  void ForEachTile(int64_t image0, int64_t images, int64_t pBegin, int64_t pEnd, void (*fn)(void*, int64_t, int64_t, int64_t, int32_t*, int32_t*), void* context) const;
  int64_t RawBandElements() const { return bandImages_ * bandRows_ * rowPixels_ * convChannels_; }

  Int8ConvParams params_;
  Dims outputDims_;
  int64_t outputPixels_ = 0;
  int64_t rowPixels_ = 0;                   // output pixels per row of the outermost spatial axis
  int64_t taps_ = 0;                        // kernel elements
  bool split_ = false;
  int64_t convChannels_ = 0;                // M, or 2M when split
  std::vector<int32_t> weightZeroPoints_;   // per output channel, s8-shifted
  bool hasWeightZeroPoints_ = false;
  std::vector<int32_t> weightTotals_;       // Σ w_s8 per output channel (the x zero point's share)
  std::vector<int64_t> high_, low_;         // per output channel: its column in the raw results (split: the halves')
  std::optional<Int8InputLayout> layout_;   // set once the chunks are known
  // The work split: `bandImages_` images (all, or one) and `bandRows_` output rows at a time, so the raw
  // int32 results of a band stay in cache and never need a buffer the size of the whole output.
  int64_t bandImages_ = 1, bandRows_ = 1, bandsPerImage_ = 1;
  std::vector<Band> bands_;                 // [0]: bandRows_ rows; [1]: the last, shorter band, if any
};

template <typename Emit>
void Int8Conv::Run(const uint8_t* x, int32_t xZero, Emit&& emit) const {
  struct Context {
    const Int8Conv* self;
    const Sums* sums;
    RawView raw;
    int64_t image0, bandBegin, bandPixels;
    Emit* emit;
  };
  const Sums sums = ComputeSums(x, xZero);
  const dnnl::memory rawMemory = TempMemory(dnnl::memory::desc({RawBandElements() * static_cast<int64_t>(bands_[0].chunks.size())}, dnnl::memory::data_type::s32,
                                                               dnnl::memory::format_tag::x),
                                            TempSlot::kInt8Accumulators);
  auto* raw = static_cast<int32_t*>(rawMemory.get_data_handle());
  for (int64_t image0 = 0; image0 < batch(); image0 += bandImages_) {
    for (int64_t band = 0; band < bandsPerImage_; ++band) {
      ConvolveBand(x, image0, band, raw);
      const int64_t rows = band + 1 < bandsPerImage_ || bands_.size() == 1 ? bands_[0].rows : bands_[1].rows;
      const int64_t pBegin = band * bandRows_ * rowPixels_;
      Context context{this, &sums, {raw, RawBandElements()}, image0, pBegin, rows * rowPixels_, &emit};
      ForEachTile(image0, bandImages_, pBegin, pBegin + rows * rowPixels_,
                  [](void* c, int64_t n, int64_t p0, int64_t count, int32_t* tile, int32_t* scratch) {
                    auto* ctx = static_cast<Context*>(c);
                    const int64_t offset = ((n - ctx->image0) * ctx->bandPixels + (p0 - ctx->bandBegin)) * ctx->self->convChannels_;
                    ctx->self->FillTile({ctx->raw.at + offset, ctx->raw.perChunk}, *ctx->sums, n, p0, count, tile, scratch);
                    (*ctx->emit)(n, p0, count, static_cast<const int32_t*>(tile));
                  },
                  &context);
    }
  }
}

}  // namespace switchyard
