#include "int8_conv.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "engine.h"
#include "errors.h"
#include "int8_transpose.h"
#include "scratchpad.h"

namespace switchyard {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "ConvInteger: " + message);
}

tag ChannelsLastTag(size_t rank) { return rank == 3 ? tag::nwc : rank == 4 ? tag::nhwc : tag::ndhwc; }

Dims RowMajorStrides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

int64_t Product(const Dims& dims, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size(); ++i) n *= dims[i];
  return n;
}

// The three spatial values of `v` (front-filled with `fill`), for loops written once for 1-D to 3-D.
struct Three {
  int64_t d[3];
};

Three Spatial3(const Dims& v, size_t from, int64_t fill) {
  Three t{{fill, fill, fill}};
  const size_t n = v.size() - from;
  for (size_t i = 0; i < n; ++i) t.d[3 - n + i] = v[from + i];
  return t;
}

// Largest |sum| oneDNN's float-rounding int8 kernels store exactly.
constexpr int64_t kExactSum = int64_t{1} << 24;

// brgemm-based kernels (brgconv, brgconv_1x1, brdgmm_dw) keep int32 sums as they are; measured exact
// far past 2^24, where the other int8 kernels of oneDNN 2.6.3 (jit_int8, jit_uni_int8, ref_int8) are not.
bool StoresExactSums(const std::string& implementation) { return implementation.rfind("brg", 0) == 0 || implementation.rfind("brdgmm", 0) == 0; }

}  // namespace

Dims Int8ConvOutputDims(Int8ConvParams& p) {
  const size_t rank = p.input.size();
  Require(rank >= 3 && rank <= 5, "input must have rank 3, 4 or 5, got " + DimsToString(p.input));
  Require(p.weights.size() == rank, "weights " + DimsToString(p.weights) + " must have the input's rank " + std::to_string(rank));
  ElementCount(p.input, "ConvInteger: input");
  ElementCount(p.weights, "ConvInteger: weights");
  const size_t spatial = rank - 2;
  Require(p.group >= 1 && p.input[1] % p.group == 0 && p.weights[0] % p.group == 0,
          "group " + std::to_string(p.group) + " must divide the input channels " + std::to_string(p.input[1]) + " and output channels " + std::to_string(p.weights[0]));
  Require(p.weights[1] * p.group == p.input[1],
          "weights " + DimsToString(p.weights) + " with group " + std::to_string(p.group) + " need " + std::to_string(p.weights[1] * p.group) + " input channels, got " + std::to_string(p.input[1]));
  const auto fill = [&](Dims& v, int64_t value, const char* name) {
    if (v.empty()) v.assign(spatial, value);
    Require(v.size() == spatial, std::string(name) + " must have " + std::to_string(spatial) + " entries");
  };
  fill(p.strides, 1, "strides");
  fill(p.dilations, 1, "dilations");
  fill(p.padsBegin, 0, "padsBegin");
  fill(p.padsEnd, 0, "padsEnd");
  Dims out = {p.input[0], p.weights[0]};
  for (size_t i = 0; i < spatial; ++i) {
    Require(p.strides[i] >= 1 && p.dilations[i] >= 1 && p.dilations[i] < (int64_t{1} << 30), "strides and dilations must be in [1, 2^30)");
    Require(p.padsBegin[i] < (int64_t{1} << 30) && p.padsEnd[i] < (int64_t{1} << 30), "pads must be in [0, 2^30)");
    const int64_t extent = (p.weights[2 + i] - 1) * p.dilations[i] + 1;
    const int64_t padded = p.input[2 + i] + p.padsBegin[i] + p.padsEnd[i];
    Require(padded >= extent, "spatial axis " + std::to_string(i) + ": padded input " + std::to_string(padded) + " is smaller than the dilated kernel " + std::to_string(extent));
    out.push_back((padded - extent) / p.strides[i] + 1);
  }
  ElementCount(out, "ConvInteger: output");
  return out;
}

Int8Conv::Int8Conv(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount) : params_(params) {
  outputDims_ = Int8ConvOutputDims(params_);
  const Dims& w = params_.weights;
  const int64_t m = w[0], groups = params_.group, mPerGroup = m / groups, perChannel = Product(w, 1);
  if (zeroPointCount != 0 && zeroPointCount != 1 && zeroPointCount != m) {
    throw CodedError("INVALID_ARGUMENT", "ConvInteger: w_zero_point must be a scalar or have " + std::to_string(m) + " entries, got " + std::to_string(zeroPointCount));
  }
  outputPixels_ = Product(outputDims_, 2);
  taps_ = Product(w, 2);

  const RawWeights raw{weights, params_.weightsSigned};
  weightZeroPoints_.resize(static_cast<size_t>(m));
  weightTotals_.assign(static_cast<size_t>(m), 0);
  for (int64_t c = 0; c < m; ++c) {
    weightZeroPoints_[c] = SignedZeroPoint({zeroPoints, params_.weightsSigned}, zeroPointCount, c, params_.weightsSigned);
    hasWeightZeroPoints_ = hasWeightZeroPoints_ || weightZeroPoints_[c] != 0;
    for (int64_t i = 0; i < perChannel; ++i) weightTotals_[c] += SignedWeight(raw, c * perChannel + i);
  }
  split_ = NeedsSplit(raw, m * perChannel, params_.split);
  convChannels_ = split_ ? 2 * m : m;
  high_.resize(static_cast<size_t>(m));
  low_.resize(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c) {
    const int64_t g = c / mPerGroup, j = c % mPerGroup;
    high_[c] = split_ ? g * 2 * mPerGroup + j : c;
    low_[c] = g * 2 * mPerGroup + mPerGroup + j;
  }

  // s8 weights [convChannels][C / group][kernel]; split, each group's channels are its high halves, then its low halves.
  std::vector<int8_t> s8(static_cast<size_t>(convChannels_ * perChannel));
  for (int64_t c = 0; c < m; ++c) {
    for (int64_t i = 0; i < perChannel; ++i) {
      const int32_t v = SignedWeight(raw, c * perChannel + i);
      if (split_) {
        s8[high_[c] * perChannel + i] = HighHalf(v);
        s8[low_[c] * perChannel + i] = LowHalf(v);
      } else {
        s8[c * perChannel + i] = static_cast<int8_t>(v);
      }
    }
  }

  ThreadScope threads(params_.threads);
  const int64_t perGroup = w[1];
  layout_.emplace(params_.input, groups, params_.padsBegin, params_.padsEnd, std::vector<int64_t>{0});
  chunks_.push_back(BuildChunk(s8, 0, perGroup));
  if (StoresExactSums(chunks_[0].pd.impl_info_str())) return;
  const std::vector<int64_t> starts = ChunkStarts(s8);
  if (starts.size() == 1) return;
  chunks_.clear();
  layout_.emplace(params_.input, groups, params_.padsBegin, params_.padsEnd, starts);
  for (size_t j = 0; j < starts.size(); ++j) chunks_.push_back(BuildChunk(s8, starts[j], j + 1 < starts.size() ? starts[j + 1] : perGroup));
}

std::vector<int64_t> Int8Conv::ChunkStarts(const std::vector<int8_t>& convWeights) const {
  // Greedy over each group's local input channels: a chunk ends before the channel that would let some
  // output channel's |sum| reach 2^24 (x <= 255 after the shift to uint8).
  const int64_t perGroup = params_.weights[1];
  std::vector<int64_t> sums(static_cast<size_t>(convChannels_), 0), starts = {0};
  for (int64_t local = 0; local < perGroup; ++local) {
    bool overflow = false;
    for (int64_t c = 0; c < convChannels_; ++c) {
      int64_t add = 0;
      for (int64_t t = 0; t < taps_; ++t) add += std::abs(static_cast<int32_t>(convWeights[(c * perGroup + local) * taps_ + t]));
      if (255 * add >= kExactSum) {
        throw CodedError("UNSUPPORTED", "ConvInteger: a kernel of " + std::to_string(taps_) + " taps can reach 2^24 from one input channel, which oneDNN's int8 kernels here do not store exactly");
      }
      overflow = overflow || 255 * (sums[c] + add) >= kExactSum;
    }
    if (overflow) {
      starts.push_back(local);
      std::fill(sums.begin(), sums.end(), 0);
    }
    for (int64_t c = 0; c < convChannels_; ++c) {
      for (int64_t t = 0; t < taps_; ++t) sums[c] += std::abs(static_cast<int32_t>(convWeights[(c * perGroup + local) * taps_ + t]));
    }
  }
  return starts;
}

Int8Conv::Chunk Int8Conv::BuildChunk(const std::vector<int8_t>& convWeights, int64_t localBegin, int64_t localEnd) const {
  const int64_t groups = params_.group, perGroup = params_.weights[1], width = localEnd - localBegin;
  const size_t rank = params_.input.size();
  std::vector<int8_t> slice(static_cast<size_t>(convChannels_ * width * taps_));
  for (int64_t c = 0; c < convChannels_; ++c) {
    for (int64_t l = 0; l < width; ++l) {
      std::copy_n(convWeights.begin() + ((c * perGroup + localBegin + l) * taps_), taps_, slice.begin() + ((c * width + l) * taps_));
    }
  }
  Dims weights = params_.weights;
  weights[0] = convChannels_;
  weights[1] = width;
  if (groups > 1) {
    weights[0] = convChannels_ / groups;
    weights.insert(weights.begin(), groups);
  }
  Dims src = layout_->paddedDims();
  src[1] = groups * width;
  Dims dst = outputDims_;
  dst[1] = convChannels_;
  Dims dilations, zeros(rank - 2, 0);
  for (auto d : params_.dilations) dilations.push_back(d - 1);  // oneDNN counts the gaps

  const dnnl::memory::desc userWeights(weights, dt::s8, RowMajorStrides(weights));
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       dnnl::memory::desc(src, dt::u8, ChannelsLastTag(rank)), dnnl::memory::desc(weights, dt::s8, tag::any),
                                       dnnl::memory::desc(dst, dt::s32, ChannelsLastTag(rank)), params_.strides, dilations, zeros, zeros);
  Chunk chunk;
  chunk.pd = dnnl::convolution_forward::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
  chunk.primitive = dnnl::convolution_forward(chunk.pd);
  chunk.weights = dnnl::memory(chunk.pd.weights_desc(), CpuEngine());
  Reorder reorder(userWeights, chunk.pd.weights_desc());
  dnnl::memory user(userWeights, CpuEngine(), slice.data());
  auto stream = NewStream();
  reorder.Execute(stream, user, chunk.weights);
  stream.wait();
  return chunk;
}

std::string Int8Conv::implementation() const {
  std::string s = chunks_[0].pd.impl_info_str();
  if (split_) s += " (7-bit weight halves)";
  if (chunks_.size() > 1) s += " (" + std::to_string(chunks_.size()) + " channel chunks)";
  return s;
}

Int8Conv::Partials Int8Conv::Compute(const uint8_t* x, int32_t xZero) const {
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  const int64_t perChunk = batch() * outputPixels_ * convChannels_;
  const int64_t chunkCount = static_cast<int64_t>(chunks_.size());
  Partials partials;
  partials.rawMemory = TempMemory(dnnl::memory::desc({perChunk * chunkCount}, dt::s32, tag::x), TempSlot::kInt8Accumulators);
  auto* raw = static_cast<int32_t*>(partials.rawMemory.get_data_handle());
  auto stream = NewStream();
  for (int64_t j = 0; j < chunkCount; ++j) {
    const Chunk& chunk = chunks_[j];
    ExecuteWithScratchpad(chunk.primitive, stream,
                          {{DNNL_ARG_SRC, dnnl::memory(chunk.pd.src_desc(), engine, const_cast<uint8_t*>(x) + layout_->chunkOffset(j))},
                           {DNNL_ARG_WEIGHTS, chunk.weights},
                           {DNNL_ARG_DST, dnnl::memory(chunk.pd.dst_desc(), engine, raw + j * perChunk)}},
                          chunk.pd.scratchpad_desc());
  }
  stream.wait();
  partials.raw = raw;
  partials.sums = nullptr;
  partials.xZero = static_cast<uint32_t>(xZero);
  if (hasWeightZeroPoints_) {
    const int64_t rows = batch() * params_.group;
    const int64_t count = rows * (layout_->paddedPixels() + outputPixels_);
    partials.sumsMemory = TempMemory(dnnl::memory::desc({count}, dt::s32, tag::x), TempSlot::kInt8Sums);
    auto* base = static_cast<int32_t*>(partials.sumsMemory.get_data_handle());
    WindowSums(x, xZero, base, base + rows * layout_->paddedPixels());
    partials.sums = base + rows * layout_->paddedPixels();
  }
  return partials;
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

namespace {

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

void Int8Conv::FillTile(const Partials& partials, int64_t n, int64_t p0, int64_t count, int32_t* tile, int32_t* scratch) const {
  const int64_t m = outputChannels(), groups = params_.group, mPerGroup = m / groups;
  const int64_t perChunk = batch() * outputPixels_ * convChannels_, chunkCount = static_cast<int64_t>(chunks_.size());
  const int32_t* base = partials.raw + (n * outputPixels_ + p0) * convChannels_;
  if (!split_ && chunkCount == 1) {
    TransposeRaw(base, convChannels_, m, count, tile);
  } else {
    // The chunks' results summed (wrapping) in scratch, then each channel's halves combined: 2 · high + low.
    auto* sum = reinterpret_cast<uint32_t*>(scratch);
    int32_t* part = scratch + convChannels_ * count;
    TransposeRaw(base, convChannels_, convChannels_, count, scratch);
    for (int64_t k = 1; k < chunkCount; ++k) {
      TransposeRaw(base + k * perChunk, convChannels_, convChannels_, count, part);
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
    if (partials.xZero && weightTotals_[c]) SubtractScaled(row, count, partials.xZero * static_cast<uint32_t>(weightTotals_[c]), nullptr);
    if (partials.sums && weightZeroPoints_[c]) {
      SubtractScaled(row, count, static_cast<uint32_t>(weightZeroPoints_[c]), partials.sums + (n * groups + c / mPerGroup) * outputPixels_ + p0);
    }
  }
}

void Int8Conv::ForEachTile(void (*fn)(void*, int64_t, int64_t, int64_t, int32_t*, int32_t*), void* context) const {
  ThreadScope threads(params_.threads);
  const int64_t tilesPerImage = (outputPixels_ + kTilePixels - 1) / kTilePixels, tiles = batch() * tilesPerImage;
  const int64_t m = outputChannels();
  const int64_t scratchRows = split_ || chunks_.size() > 1 ? 2 * convChannels_ : 0;
#pragma omp parallel if (tiles > 1 && omp_get_max_threads() > 1)
  {
    std::vector<int32_t> tile(static_cast<size_t>((m + scratchRows) * kTilePixels));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t n = t / tilesPerImage, p0 = (t % tilesPerImage) * kTilePixels;
      fn(context, n, p0, std::min(kTilePixels, outputPixels_ - p0), tile.data(), tile.data() + m * kTilePixels);
    }
  }
}

}  // namespace switchyard
