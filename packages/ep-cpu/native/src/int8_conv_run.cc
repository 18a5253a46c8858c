// Int8Conv's run: the window sums of the weight zero point's share, one band's oneDNN convolutions,
// and the tiles of exact results (int8_conv.h explains the arithmetic).
#include <omp.h>

#include <algorithm>

#include "engine.h"
#include "int8_conv.h"
#include "int8_transpose.h"

namespace switchyard {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// The three spatial values of `v` from index `from` (front-filled with `fill`), for loops written once for 1-D to 3-D.
struct Three {
  int64_t d[3];
};

Three Spatial3(const Dims& v, size_t from, int64_t fill) {
  Three t{{fill, fill, fill}};
  const size_t n = v.size() - from;
  for (size_t i = 0; i < n; ++i) t.d[3 - n + i] = v[from + i];
  return t;
}

// out[c * count + i] = raw[i * rowStride + c] for c < channels, i < count: 4 x 4 blocks where they fit.
void TransposeRaw(const int32_t* raw, int64_t rowStride, int64_t channels, int64_t count, int32_t* out) {
  const int64_t c4 = channels / 4 * 4, i4 = count / 4 * 4;
  for (int64_t c = 0; c < c4; c += 4) {
    for (int64_t i = 0; i < i4; i += 4) Transpose4x4Ints(raw + i * rowStride + c, rowStride, out + c * count + i, count);
    for (int64_t i = i4; i < count; ++i) {
      for (int64_t k = 0; k < 4; ++k) out[(c + k) * count + i] = raw[i * rowStride + c + k];
    }
  }
  for (int64_t c = c4; c < channels; ++c) {
    for (int64_t i = 0; i < count; ++i) out[c * count + i] = raw[i * rowStride + c];
  }
}

// row[i] -= k · v[i] (or just k when v is null), wrapping.
void SubtractScaled(int32_t* row, int64_t count, uint32_t k, const int32_t* v) {
  auto* r = reinterpret_cast<uint32_t*>(row);
  if (!v) {
    for (int64_t i = 0; i < count; ++i) r[i] -= k;
    return;
  }
  for (int64_t i = 0; i < count; ++i) r[i] -= k * static_cast<uint32_t>(v[i]);
}

}  // namespace

Int8Conv::Sums Int8Conv::ComputeSums(const uint8_t* x, int32_t xZero) const {
  Sums sums{{}, nullptr, static_cast<uint32_t>(xZero)};
  if (!hasWeightZeroPoints_) return sums;
  ThreadScope threads(params_.threads);
  const int64_t rows = batch() * params_.group;
  const int64_t count = rows * (layout_->paddedPixels() + outputPixels_);
  sums.memory = TempMemory(dnnl::memory::desc({count}, dt::s32, tag::x), TempSlot::kInt8Sums);
  auto* base = static_cast<int32_t*>(sums.memory.get_data_handle());
  WindowSums(x, xZero, base, base + rows * layout_->paddedPixels());
  sums.data = base + rows * layout_->paddedPixels();
  return sums;
}

void Int8Conv::WindowSums(const uint8_t* x, int32_t xZero, int32_t* channelSums, int32_t* sums) const {
  const Int8InputLayout& in = *layout_;
  const int64_t n = batch(), groups = params_.group, pixels = in.paddedPixels();
  // Σ over each group's channels of (x - x_zp) per padded pixel (padding holds x_zp: 0): [N, G, pixels].
#pragma omp parallel for schedule(static) if (n * pixels * inputChannels() >= (int64_t{1} << 15))
  for (int64_t np = 0; np < n * pixels; ++np) {
    const int64_t b = np / pixels, p = np % pixels;
    for (int64_t g = 0; g < groups; ++g) {
      int32_t s = 0, count = 0;
      for (int64_t j = 0; j < in.chunks(); ++j) {
        const int64_t width = in.chunkLocalEnd(j) - in.chunkLocalBegin(j);
        const uint8_t* px = x + in.chunkOffset(j) + np * in.chunkChannels(j) + g * width;
        for (int64_t i = 0; i < width; ++i) s += px[i];
        count += static_cast<int32_t>(width);
      }
      channelSums[(b * groups + g) * pixels + p] = s - count * xZero;
    }
  }
  // Boxed over each output pixel's receptive field (the input is padded: every tap is in range).
  const Three size = Spatial3(in.paddedDims(), 2, 1), out = Spatial3(outputDims_, 2, 1), k = Spatial3(params_.weights, 2, 1);
  const Three stride = Spatial3(params_.strides, 0, 1), dil = Spatial3(params_.dilations, 0, 1);
  const int64_t outPixels = outputPixels_;
#pragma omp parallel for schedule(static) if (n * groups * outPixels * taps_ >= (int64_t{1} << 14))
  for (int64_t row = 0; row < n * groups; ++row) {
    const int32_t* s = channelSums + row * pixels;
    int32_t* r = sums + row * outPixels;
    for (int64_t od = 0; od < out.d[0]; ++od) {
      for (int64_t oh = 0; oh < out.d[1]; ++oh) {
        for (int64_t ow = 0; ow < out.d[2]; ++ow) {
          uint32_t total = 0;
          for (int64_t kd = 0; kd < k.d[0]; ++kd) {
            for (int64_t kh = 0; kh < k.d[1]; ++kh) {
              const int32_t* line = s + ((od * stride.d[0] + kd * dil.d[0]) * size.d[1] + (oh * stride.d[1] + kh * dil.d[1])) * size.d[2] + ow * stride.d[2];
              for (int64_t kw = 0; kw < k.d[2]; ++kw) total += static_cast<uint32_t>(line[kw * dil.d[2]]);
            }
          }
          r[(od * out.d[1] + oh) * out.d[2] + ow] = static_cast<int32_t>(total);
        }
      }
    }
  }
}

void Int8Conv::ConvolveBand(const uint8_t* x, int64_t image0, int64_t band, int32_t* raw) const {
  ThreadScope threads(params_.threads);
  const Int8InputLayout& in = *layout_;
  const Band& shape = band + 1 < bandsPerImage_ || bands_.size() == 1 ? bands_[0] : bands_[1];
  // The band's first input row along the outermost spatial axis (rows are contiguous, channels-last).
  const int64_t firstRow = band * bandRows_ * params_.strides[0];
  const int64_t rowPixels = in.paddedPixels() / in.paddedDims()[2];
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  for (size_t j = 0; j < shape.chunks.size(); ++j) {
    const Conv& conv = shape.chunks[j];
    const int64_t offset = in.chunkOffset(static_cast<int64_t>(j)) + (image0 * in.paddedPixels() + firstRow * rowPixels) * in.chunkChannels(static_cast<int64_t>(j));
    ExecuteWithScratchpad(conv.primitive, stream,
                          {{DNNL_ARG_SRC, dnnl::memory(conv.pd.src_desc(), engine, const_cast<uint8_t*>(x) + offset)},
                           {DNNL_ARG_WEIGHTS, conv.weights},
                           {DNNL_ARG_DST, dnnl::memory(conv.pd.dst_desc(), engine, raw + static_cast<int64_t>(j) * RawBandElements())}},
                          conv.pd.scratchpad_desc());
  }
  stream.wait();
}

void Int8Conv::FillTile(RawView raw, const Sums& sums, int64_t n, int64_t p0, int64_t count, int32_t* tile, int32_t* scratch) const {
  const int64_t m = outputChannels(), groups = params_.group, mPerGroup = m / groups;
  const int64_t chunkCount = static_cast<int64_t>(bands_[0].chunks.size());
  if (!split_ && chunkCount == 1) {
    TransposeRaw(raw.at, convChannels_, m, count, tile);
  } else {
    // The chunks' results summed (wrapping) in scratch, then each channel's halves combined: 2 · high + low.
    auto* sum = reinterpret_cast<uint32_t*>(scratch);
    int32_t* part = scratch + convChannels_ * count;
    TransposeRaw(raw.at, convChannels_, convChannels_, count, scratch);
    for (int64_t k = 1; k < chunkCount; ++k) {
      TransposeRaw(raw.at + k * raw.perChunk, convChannels_, convChannels_, count, part);
      for (int64_t i = 0; i < convChannels_ * count; ++i) sum[i] += static_cast<uint32_t>(part[i]);
    }
    for (int64_t c = 0; c < m; ++c) {
      auto* row = reinterpret_cast<uint32_t*>(tile + c * count);
      const uint32_t* high = sum + high_[c] * count;
      if (!split_) {
        std::copy_n(high, count, row);
        continue;
      }
      const uint32_t* low = sum + low_[c] * count;
      for (int64_t i = 0; i < count; ++i) row[i] = 2u * high[i] + low[i];
    }
  }
  for (int64_t c = 0; c < m; ++c) {
    int32_t* row = tile + c * count;
    if (sums.xZero && weightTotals_[c]) SubtractScaled(row, count, sums.xZero * static_cast<uint32_t>(weightTotals_[c]), nullptr);
    if (sums.data && weightZeroPoints_[c]) {
      SubtractScaled(row, count, static_cast<uint32_t>(weightZeroPoints_[c]), sums.data + (n * groups + c / mPerGroup) * outputPixels_ + p0);
    }
  }
}

void Int8Conv::ForEachTile(int64_t image0, int64_t images, int64_t pBegin, int64_t pEnd, void (*fn)(void*, int64_t, int64_t, int64_t, int32_t*, int32_t*),
                           void* context) const {
  ThreadScope threads(params_.threads);
  const int64_t tilesPerImage = (pEnd - pBegin + kTilePixels - 1) / kTilePixels, tiles = images * tilesPerImage;
  const int64_t m = outputChannels();
  const int64_t scratchRows = split_ || bands_[0].chunks.size() > 1 ? 2 * convChannels_ : 0;
#pragma omp parallel if (tiles > 1 && omp_get_max_threads() > 1)
  {
    std::vector<int32_t> tile(static_cast<size_t>((m + scratchRows) * kTilePixels));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t n = image0 + t / tilesPerImage, p0 = pBegin + (t % tilesPerImage) * kTilePixels;
      fn(context, n, p0, std::min(kTilePixels, pEnd - p0), tile.data(), tile.data() + m * kTilePixels);
    }
  }
}

}  // namespace switchyard
