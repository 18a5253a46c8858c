#include "int8_conv.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "engine.h"
#include <switchyard/errors.h>
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

// Largest |sum| oneDNN's float-rounding int8 kernels store exactly.
constexpr int64_t kExactSum = int64_t{1} << 24;

// Outputs whose raw int32 results fit this run whole; larger ones run in bands of about kBandBytes
// (a band's results are read back by the epilogue while still in cache, and no buffer the size of a large
// output is allocated, page by page, per call: at 1024 x 1024 x 32 channels that alone cost ~100 ms).
constexpr int64_t kWholeBytes = int64_t{4} << 20;
constexpr int64_t kBandBytes = int64_t{1} << 20;

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
  rowPixels_ = outputPixels_ / outputDims_[2];
  PlanBands(s8, {0});
  if (StoresExactly()) return;
  const std::vector<int64_t> starts = ChunkStarts(s8);
  if (starts.size() > 1) PlanBands(s8, starts);
}

bool Int8Conv::StoresExactly() const {
  for (const Band& band : bands_) {
    for (const Conv& conv : band.chunks) {
      if (!StoresExactSums(conv.pd.impl_info_str())) return false;
    }
  }
  return true;
}

void Int8Conv::PlanBands(const std::vector<int8_t>& convWeights, const std::vector<int64_t>& chunkStarts) {
  const int64_t perGroup = params_.weights[1], rows = outputDims_[2], chunks = static_cast<int64_t>(chunkStarts.size());
  layout_.emplace(params_.input, params_.group, params_.padsBegin, params_.padsEnd, chunkStarts);
  // Small outputs run whole (all images, all rows: one oneDNN call per chunk); larger ones per image in
  // bands of rows whose raw results take about kBandBytes.
  const int64_t rowBytes = rowPixels_ * convChannels_ * chunks * static_cast<int64_t>(sizeof(int32_t));
  if (batch() * rows * rowBytes <= kWholeBytes) {
    bandImages_ = batch();
    bandRows_ = rows;
  } else {
    bandImages_ = 1;
    bandRows_ = std::min(rows, std::max<int64_t>(1, kBandBytes / rowBytes));
  }
  bandsPerImage_ = (rows + bandRows_ - 1) / bandRows_;
  bands_.clear();
  for (const int64_t bandRows : {bandRows_, rows % bandRows_}) {
    if (bandRows == 0) continue;
    Band band{bandRows, {}};
    for (int64_t j = 0; j < chunks; ++j) {
      const int64_t end = j + 1 < chunks ? chunkStarts[j + 1] : perGroup;
      band.chunks.push_back(BuildConv(convWeights, chunkStarts[j], end, bandImages_, bandRows));
    }
    bands_.push_back(std::move(band));
  }
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

Int8Conv::Conv Int8Conv::BuildConv(const std::vector<int8_t>& convWeights, int64_t localBegin, int64_t localEnd, int64_t images, int64_t rows) const {
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
  // The input rows this band reads (all padded rows when the band is the whole output).
  Dims src = layout_->paddedDims();
  src[0] = images;
  src[1] = groups * width;
  if (rows != outputDims_[2]) src[2] = (rows - 1) * params_.strides[0] + (params_.weights[2] - 1) * params_.dilations[0] + 1;
  Dims dst = outputDims_;
  dst[0] = images;
  dst[1] = convChannels_;
  dst[2] = rows;
  Dims dilations, zeros(rank - 2, 0);
  for (auto d : params_.dilations) dilations.push_back(d - 1);  // oneDNN counts the gaps

  const dnnl::memory::desc userWeights(weights, dt::s8, RowMajorStrides(weights));
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       dnnl::memory::desc(src, dt::u8, ChannelsLastTag(rank)), dnnl::memory::desc(weights, dt::s8, tag::any),
                                       dnnl::memory::desc(dst, dt::s32, ChannelsLastTag(rank)), params_.strides, dilations, zeros, zeros);
  Conv conv;
  conv.pd = dnnl::convolution_forward::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
  conv.primitive = dnnl::convolution_forward(conv.pd);
  conv.weights = dnnl::memory(conv.pd.weights_desc(), CpuEngine());
  Reorder reorder(userWeights, conv.pd.weights_desc());
  dnnl::memory user(userWeights, CpuEngine(), slice.data());
  auto stream = NewStream();
  reorder.Execute(stream, user, conv.weights);
  stream.wait();
  return conv;
}

std::string Int8Conv::implementation() const {
  std::string s = bands_[0].chunks[0].pd.impl_info_str();
  if (split_) s += " (7-bit weight halves)";
  if (bands_[0].chunks.size() > 1) s += " (" + std::to_string(bands_[0].chunks.size()) + " channel chunks)";
  if (bandsPerImage_ > 1) s += " (bands of " + std::to_string(bandRows_) + " rows)";
  return s;
}

}  // namespace switchyard
