#include "int8_matmul.h"

#include <omp.h>

#include <algorithm>

#include "engine.h"
#include <switchyard/errors.h>
#include "scratchpad.h"

namespace switchyard {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "MatMulInteger: " + message);
}

// The int8 matmul kernels measured to keep int32 sums exact (see the header).
bool StoresExactSums(const std::string& implementation) { return implementation.rfind("brg", 0) == 0 || implementation.rfind("gemm", 0) == 0; }

int32_t ZeroPointAt(const void* zeros, int64_t count, int64_t row, bool isSigned) {
  if (!zeros) return isSigned ? 128 : 0;
  const int64_t i = count == 1 ? 0 : row % count;
  return isSigned ? static_cast<const int8_t*>(zeros)[i] + 128 : static_cast<const uint8_t*>(zeros)[i];
}

}  // namespace

Int8MatMul::Int8MatMul(const Int8MatMulParams& params, const void* b, const void* zeroPoints, int64_t zeroPointCount) : params_(params) {
  const int64_t rows = params_.rows, k = params_.inner, n = params_.columns;
  Require(rows >= 1 && k >= 1 && n >= 1, "rows, K and N must be >= 1");
  Require(rows * k <= kMaxElements && k * n <= kMaxElements && rows * n <= kMaxElements, "A, B and the product must each have at most 2^31-1 elements");
  Require(zeroPointCount == 0 || zeroPointCount == 1 || zeroPointCount == n,
          "b_zero_point must be a scalar or have " + std::to_string(n) + " entries, got " + std::to_string(zeroPointCount));
  const RawWeights raw{b, params_.bSigned};
  split_ = NeedsSplit(raw, k * n, params_.split);
  convColumns_ = split_ ? 2 * n : n;
  columnSums_.assign(static_cast<size_t>(n), 0);
  columnZeroPoints_.resize(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c) {
    columnZeroPoints_[c] = SignedZeroPoint({zeroPoints, params_.bSigned}, zeroPointCount, c, params_.bSigned);
    hasColumnZeroPoints_ = hasColumnZeroPoints_ || columnZeroPoints_[c] != 0;
  }
  std::vector<int8_t> s8(static_cast<size_t>(k * convColumns_));
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const int32_t v = SignedWeight(raw, r * n + c);
      columnSums_[c] += v;
      if (split_) {
        s8[r * convColumns_ + c] = HighHalf(v);
        s8[r * convColumns_ + n + c] = LowHalf(v);
      } else {
        s8[r * convColumns_ + c] = static_cast<int8_t>(v);
      }
    }
  }
  ThreadScope threads(params_.threads);
  const dnnl::memory::desc user({k, convColumns_}, dt::s8, tag::ab);
  dnnl::matmul::desc desc(dnnl::memory::desc({rows, k}, dt::u8, tag::ab), dnnl::memory::desc({k, convColumns_}, dt::s8, tag::any),
                          dnnl::memory::desc({rows, convColumns_}, dt::s32, tag::ab));
  pd_ = dnnl::matmul::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
  if (!StoresExactSums(pd_.impl_info_str())) {
    throw CodedError("UNSUPPORTED", std::string("MatMulInteger: oneDNN chose '") + pd_.impl_info_str() + "', whose int32 sums are not known to be exact");
  }
  primitive_ = dnnl::matmul(pd_);
  packedB_ = dnnl::memory(pd_.weights_desc(), CpuEngine());
  Reorder reorder(user, pd_.weights_desc());
  dnnl::memory userMemory(user, CpuEngine(), s8.data());
  auto stream = NewStream();
  reorder.Execute(stream, userMemory, packedB_);
  stream.wait();
}

std::string Int8MatMul::implementation() const { return std::string(pd_.impl_info_str()) + (split_ ? " (7-bit weight halves)" : ""); }

Int8MatMul::Partials Int8MatMul::Compute(const void* a, const void* aZero, int64_t aZeroCount) const {
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  const int64_t rows = params_.rows, k = params_.inner;
  Partials partials;
  partials.aZero = aZero;
  partials.aZeroCount = aZeroCount;
  const auto* input = static_cast<const uint8_t*>(a);
  if (params_.aSigned) {
    // int8 A as uint8 (x XOR 0x80 = x + 128); its zero points are shifted alike in FillRows.
    partials.inputMemory = TempMemory(dnnl::memory::desc({rows * k}, dt::u8, tag::x), TempSlot::kInt8Input);
    auto* shifted = static_cast<uint8_t*>(partials.inputMemory.get_data_handle());
    const int64_t total = rows * k;
#pragma omp parallel for schedule(static) if (total >= (int64_t{1} << 16))
    for (int64_t i = 0; i < total; ++i) shifted[i] = input[i] ^ 0x80;
    input = shifted;
  }
  partials.rawMemory = TempMemory(dnnl::memory::desc({rows * convColumns_}, dt::s32, tag::x), TempSlot::kInt8Accumulators);
  auto stream = NewStream();
  ExecuteWithScratchpad(primitive_, stream,
                        {{DNNL_ARG_SRC, dnnl::memory(pd_.src_desc(), engine, const_cast<uint8_t*>(input))},
                         {DNNL_ARG_WEIGHTS, packedB_},
                         {DNNL_ARG_DST, dnnl::memory(pd_.dst_desc(), engine, partials.rawMemory.get_data_handle())}},
                        pd_.scratchpad_desc());
  stream.wait();
  partials.raw = static_cast<const int32_t*>(partials.rawMemory.get_data_handle());
  partials.rowSums = nullptr;
  if (hasColumnZeroPoints_) {
    partials.sumsMemory = TempMemory(dnnl::memory::desc({rows}, dt::s32, tag::x), TempSlot::kInt8Sums);
    auto* sums = static_cast<int32_t*>(partials.sumsMemory.get_data_handle());
#pragma omp parallel for schedule(static) if (rows * k >= (int64_t{1} << 16))
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* row = input + r * k;
      uint32_t s = 0;
      for (int64_t i = 0; i < k; ++i) s += row[i];
      sums[r] = static_cast<int32_t>(s);
    }
    partials.rowSums = sums;
  }
  return partials;
}

void Int8MatMul::FillRows(const Partials& partials, int64_t r0, int64_t count, int32_t* tile) const {
  const int64_t n = params_.columns;
  const auto k = static_cast<uint32_t>(params_.inner);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t r = r0 + i;
    const int32_t* raw = partials.raw + r * convColumns_;
    auto* out = reinterpret_cast<uint32_t*>(tile + i * n);
    const auto az = static_cast<uint32_t>(ZeroPointAt(partials.aZero, partials.aZeroCount, r, params_.aSigned));
    const auto* sums = reinterpret_cast<const uint32_t*>(columnSums_.data());
    if (split_) {
      for (int64_t c = 0; c < n; ++c) out[c] = 2u * static_cast<uint32_t>(raw[c]) + static_cast<uint32_t>(raw[n + c]) - az * sums[c];
    } else {
      for (int64_t c = 0; c < n; ++c) out[c] = static_cast<uint32_t>(raw[c]) - az * sums[c];
    }
    if (partials.rowSums) {
      // - b_zp[n] · (Σ_k a[r, k] - K · a_zp): the columns' zero-point share.
      const uint32_t rowShare = static_cast<uint32_t>(partials.rowSums[r]) - k * az;
      const auto* zps = reinterpret_cast<const uint32_t*>(columnZeroPoints_.data());
      for (int64_t c = 0; c < n; ++c) out[c] -= zps[c] * rowShare;
    }
  }
}

void Int8MatMul::ForEachBlock(void (*fn)(void*, int64_t, int64_t, int32_t*), void* context) const {
  ThreadScope threads(params_.threads);
  const int64_t rows = params_.rows, blocks = (rows + kTileRows - 1) / kTileRows;
#pragma omp parallel if (blocks > 1 && rows * params_.columns >= (int64_t{1} << 14) && omp_get_max_threads() > 1)
  {
    std::vector<int32_t> tile(static_cast<size_t>(kTileRows * params_.columns));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * kTileRows;
      fn(context, r0, std::min(kTileRows, rows - r0), tile.data());
    }
  }
}

}  // namespace switchyard
