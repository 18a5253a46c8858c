#include "int8_input.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include <switchyard/errors.h>
#include "int8_transpose.h"

namespace switchyard {

namespace {

// Pixels per tile (a multiple of 16): a tile of all channels stays in cache while it is transposed.
constexpr int64_t kTilePixels = 128;

}  // namespace

Int8InputLayout::Int8InputLayout(const Dims& input, int64_t groups, const Dims& padsBegin, const Dims& padsEnd, std::vector<int64_t> chunkBegin)
    : input_(input), padded_(input), chunkBegin_(std::move(chunkBegin)) {
  batch_ = input[0];
  channels_ = input[1];
  groups_ = groups;
  perGroup_ = channels_ / groups_;
  const size_t spatial = input.size() - 2;
  for (int i = 0; i < 3; ++i) {
    in_[i] = 1;
    pad_[i] = 0;
  }
  for (size_t i = 0; i < spatial; ++i) {
    const size_t k = 3 - spatial + i;
    in_[k] = input[2 + i];
    pad_[k] = padsBegin[i];
    padded_[2 + i] = input[2 + i] + padsBegin[i] + padsEnd[i];
  }
  for (int i = 0; i < 3; ++i) size_[i] = 1;
  for (size_t i = 0; i < spatial; ++i) size_[3 - spatial + i] = padded_[2 + i];
  pixels_ = in_[0] * in_[1] * in_[2];
  paddedPixels_ = size_[0] * size_[1] * size_[2];
  ElementCount(padded_, "ConvInteger: padded input");

  chunkOffset_.resize(chunkBegin_.size());
  int64_t offset = 0;
  for (int64_t j = 0; j < chunks(); ++j) {
    chunkOffset_[j] = offset;
    offset += batch_ * paddedPixels_ * chunkChannels(j);
  }
  bytes_ = offset;
  base_.resize(static_cast<size_t>(channels_));
  stride_.resize(static_cast<size_t>(channels_));
  for (int64_t c = 0; c < channels_; ++c) {
    const int64_t g = c / perGroup_, local = c % perGroup_;
    int64_t j = chunks() - 1;
    while (chunkBegin_[j] > local) --j;
    const int64_t width = chunkLocalEnd(j) - chunkLocalBegin(j);
    base_[c] = chunkOffset_[j] + g * width + (local - chunkLocalBegin(j));
    stride_[c] = chunkChannels(j);
  }
}

int64_t Int8InputLayout::chunkChannels(int64_t j) const { return groups_ * (chunkLocalEnd(j) - chunkLocalBegin(j)); }

void Int8InputLayout::FillPadding(uint8_t value, uint8_t* buffer) const {
  if (paddedPixels_ == pixels_) return;
  const int64_t rows = batch_ * size_[0] * size_[1];
#pragma omp parallel for schedule(static) if (rows * size_[2] * channels_ >= (int64_t{1} << 16))
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / (size_[0] * size_[1]), d = (r / size_[1]) % size_[0], h = r % size_[1];
    const bool borderRow = d < pad_[0] || d >= pad_[0] + in_[0] || h < pad_[1] || h >= pad_[1] + in_[1];
    for (int64_t j = 0; j < chunks(); ++j) {
      const int64_t cj = chunkChannels(j);
      uint8_t* row = buffer + chunkOffset_[j] + (n * paddedPixels_ + (d * size_[1] + h) * size_[2]) * cj;
      if (borderRow) {
        std::memset(row, value, static_cast<size_t>(size_[2] * cj));
        continue;
      }
      std::memset(row, value, static_cast<size_t>(pad_[2] * cj));
      const int64_t right = pad_[2] + in_[2];
      std::memset(row + right * cj, value, static_cast<size_t>((size_[2] - right) * cj));
    }
  }
}

template <typename Row>
void Int8InputLayout::Fill(Row&& row, uint8_t xorMask, uint8_t paddingValue, uint8_t* buffer) const {
  FillPadding(paddingValue, buffer);
  const int64_t tilesPerImage = (pixels_ + kTilePixels - 1) / kTilePixels, tiles = batch_ * tilesPerImage;
  const bool parallel = tiles > 1 && batch_ * channels_ * pixels_ >= (int64_t{1} << 15) && omp_get_max_threads() > 1;
#pragma omp parallel if (parallel)
  {
    std::vector<uint8_t> tile(static_cast<size_t>(channels_ * kTilePixels));
    int64_t padded[kTilePixels];
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t n = t / tilesPerImage, p0 = (t % tilesPerImage) * kTilePixels, count = std::min(kTilePixels, pixels_ - p0);
      for (int64_t c = 0; c < channels_; ++c) row(n, c, p0, count, tile.data() + c * kTilePixels);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t p = p0 + i, w = p % in_[2], h = (p / in_[2]) % in_[1], d = p / (in_[2] * in_[1]);
        padded[i] = n * paddedPixels_ + ((d + pad_[0]) * size_[1] + (h + pad_[1])) * size_[2] + (w + pad_[2]);
      }
      if (xorMask) {
        for (auto& b : tile) b ^= xorMask;
      }
      // 16 x 16 blocks where 16 channels lie side by side in one chunk; single bytes elsewhere.
      int64_t c = 0;
      for (; c + 16 <= channels_ && count == kTilePixels; c += 16) {
        if (base_[c + 15] != base_[c] + 15 || stride_[c + 15] != stride_[c]) break;
        const int64_t stride = stride_[c];
        uint8_t* rows[16];
        for (int64_t i0 = 0; i0 < count; i0 += 16) {
          for (int k = 0; k < 16; ++k) rows[k] = buffer + base_[c] + padded[i0 + k] * stride;
          Transpose16x16Bytes(tile.data() + c * kTilePixels + i0, kTilePixels, rows);
        }
      }
      for (; c < channels_; ++c) {
        const uint8_t* src = tile.data() + c * kTilePixels;
        uint8_t* dst = buffer + base_[c];
        const int64_t stride = stride_[c];
        for (int64_t i = 0; i < count; ++i) dst[padded[i] * stride] = src[i];
      }
    }
  }
}

void Int8InputLayout::Copy(const uint8_t* x, bool shiftToUnsigned, uint8_t paddingValue, uint8_t* buffer) const {
  const int64_t pixels = pixels_, channels = channels_;
  Fill([&](int64_t n, int64_t c, int64_t p0, int64_t count, uint8_t* out) { std::memcpy(out, x + (n * channels + c) * pixels + p0, static_cast<size_t>(count)); },
       shiftToUnsigned ? 0x80 : 0, paddingValue, buffer);
}

void Int8InputLayout::Quantize(const float* x, QuantParams params, uint8_t* buffer) const {
  const int64_t pixels = pixels_, channels = channels_;
  const auto zero = static_cast<uint8_t>(params.zeroPoint);
  Fill(
      [&](int64_t n, int64_t c, int64_t p0, int64_t count, uint8_t* out) {
        // A zero scale (an all-zero tensor) quantizes everything to the zero point, as DynamicQuantizeLinear does.
        if (params.scale == 0.0f) std::memset(out, zero, static_cast<size_t>(count));
        else QuantizeRow(x + (n * channels + c) * pixels + p0, count, params, QuantType::kUint8, out);
      },
      0, zero, buffer);
}

}  // namespace switchyard
