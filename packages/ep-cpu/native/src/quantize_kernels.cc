#include "quantize_kernels.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace switchyard {

namespace {

// Below this many elements a loop runs on the calling thread: waking the OpenMP team costs more.
constexpr int64_t kParallelElements = int64_t{1} << 16;

// Adding and subtracting 1.5 · 2^23 rounds a float of magnitude < 2^22 to an integer, ties to even
// (the default rounding mode), in plain vector arithmetic; the quantizers clamp x / scale far inside
// that range first. (Without -ffast-math the compiler keeps both operations.)
constexpr float kRoundMagic = 12582912.0f;

// The leaves below are what gets vectorised: one clone per ISA, picked at load time. They are
// single-threaded; the callers split the work across the team.
#define SWITCHYARD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

SWITCHYARD_CLONES
void QuantizeLeaf(const float* x, int64_t n, float scale, float zp, float lo, float hi, uint8_t* out) {
  // x / scale beyond these bounds saturates anyway; inside them the magic rounding is exact.
  const float qlo = lo - zp - 1.0f, qhi = hi - zp + 1.0f;
  for (int64_t i = 0; i < n; ++i) {
    float q = x[i] / scale;
    q = q < qlo ? qlo : q;
    q = q > qhi ? qhi : q;
    float v = ((q + kRoundMagic) - kRoundMagic) + zp;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    v = v == v ? v : 0.0f;  // NaN → 0
    // Two's complement truncation stores a uint8 or an int8 alike.
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
  }
}

// One row whose elements each have their own scale and zero point (per-axis on the last axis).
SWITCHYARD_CLONES
void QuantizeLeafPerElement(const float* x, int64_t n, const float* scales, const float* zps, float lo, float hi, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float zp = zps[i];
    const float qlo = lo - zp - 1.0f, qhi = hi - zp + 1.0f;
    float q = x[i] / scales[i];
    q = q < qlo ? qlo : q;
    q = q > qhi ? qhi : q;
    float v = ((q + kRoundMagic) - kRoundMagic) + zp;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    v = v == v ? v : 0.0f;
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
  }
}

SWITCHYARD_CLONES
void DequantizeLeafU8(const uint8_t* x, int64_t n, float scale, int32_t zp, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * scale;
}

SWITCHYARD_CLONES
void DequantizeLeafS8(const int8_t* x, int64_t n, float scale, int32_t zp, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * scale;
}

SWITCHYARD_CLONES
void DequantizeLeafS32(const int32_t* x, int64_t n, float scale, int32_t zp, float* y) {
  const double s = scale;
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<double>(static_cast<int64_t>(x[i]) - zp) * s);
}

typedef float Floats8 __attribute__((vector_size(32)));

SWITCHYARD_CLONES
void MinMaxLeaf(const float* x, int64_t n, float* min, float* max) {
  // Two independent vector accumulators per bound; `v < a ? v : a` keeps a when v is NaN.
  const float m0 = *min, m1 = *max;
  Floats8 lo0 = {m0, m0, m0, m0, m0, m0, m0, m0}, hi0 = {m1, m1, m1, m1, m1, m1, m1, m1};
  Floats8 lo1 = lo0, hi1 = hi0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Floats8 v, w;
    std::memcpy(&v, x + i, sizeof v);
    std::memcpy(&w, x + i + 8, sizeof w);
    lo0 = v < lo0 ? v : lo0;
    hi0 = v > hi0 ? v : hi0;
    lo1 = w < lo1 ? w : lo1;
    hi1 = w > hi1 ? w : hi1;
  }
  float lo = m0, hi = m1;
  for (int j = 0; j < 8; ++j) {
    lo = lo0[j] < lo ? lo0[j] : lo;
    lo = lo1[j] < lo ? lo1[j] : lo;
    hi = hi0[j] > hi ? hi0[j] : hi;
    hi = hi1[j] > hi ? hi1[j] : hi;
  }
  for (; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  *min = lo;
  *max = hi;
}

#undef SWITCHYARD_CLONES

// [begin, end) of `n` items for thread `t` of `threads`.
void Slice(int64_t n, int t, int threads, int64_t* begin, int64_t* end) {
  const int64_t per = n / threads, extra = n % threads;
  *begin = t * per + std::min<int64_t>(t, extra);
  *end = *begin + per + (t < extra ? 1 : 0);
}

// Runs fn(rowBegin, rowEnd) over `rows` rows of `rowElements` each, split across the team when the
// whole is large enough.
template <typename Fn>
void ForRows(int64_t rows, int64_t rowElements, Fn&& fn) {
  if (rows * rowElements < kParallelElements || omp_get_max_threads() == 1 || rows == 1) {
    fn(int64_t{0}, rows);
    return;
  }
#pragma omp parallel
  {
    int64_t begin, end;
    Slice(rows, omp_get_thread_num(), omp_get_num_threads(), &begin, &end);
    if (begin < end) fn(begin, end);
  }
}

// A tensor with one scale, split into contiguous chunks (rows of one chunk each) for ForRows.
constexpr int64_t kChunk = 16384;

}  // namespace

QuantRange RangeOf(QuantType type) { return type == QuantType::kUint8 ? QuantRange{0.0f, 255.0f} : QuantRange{-128.0f, 127.0f}; }

void MinMaxWithZero(const float* x, int64_t n, float* min, float* max) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<float> lows(static_cast<size_t>(std::max<int64_t>(chunks, 1)), 0.0f), highs(lows.size(), 0.0f);
  ForRows(chunks, kChunk, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t start = c * kChunk;
      MinMaxLeaf(x + start, std::min(kChunk, n - start), &lows[c], &highs[c]);
    }
  });
  float lo = 0.0f, hi = 0.0f;
  for (size_t c = 0; c < lows.size(); ++c) {
    lo = std::min(lo, lows[c]);
    hi = std::max(hi, highs[c]);
  }
  *min = lo;
  *max = hi;
}

QuantParams DynamicQuantParams(float min, float max) {
  // Each step rounds to float32, as the spec's numpy reference and onnxruntime compute it.
  const float range = max - min;
  const float scale = range / 255.0f;
  if (scale == 0.0f) return {0.0f, 0};
  const float zp = std::nearbyint(-min / scale);
  return {scale, static_cast<int32_t>(zp < 0.0f ? 0.0f : zp > 255.0f ? 255.0f : zp)};
}

void QuantizeRow(const float* x, int64_t n, QuantParams params, QuantType type, uint8_t* y) {
  const QuantRange r = RangeOf(type);
  QuantizeLeaf(x, n, params.scale, static_cast<float>(params.zeroPoint), r.lo, r.hi, y);
}

void QuantizeTensor(const float* x, int64_t n, QuantParams params, QuantType type, void* y) {
  auto* out = static_cast<uint8_t*>(y);
  if (params.scale == 0.0f) {
    std::memset(out, static_cast<uint8_t>(params.zeroPoint), static_cast<size_t>(n));
    return;
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  ForRows(chunks, kChunk, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t start = c * kChunk;
      QuantizeRow(x + start, std::min(kChunk, n - start), params, type, out + start);
    }
  });
}

void QuantizeAxis(const float* x, int64_t outer, int64_t channels, int64_t inner, const float* scales,
                  const int32_t* zeroPoints, QuantType type, void* y) {
  auto* out = static_cast<uint8_t*>(y);
  const QuantRange r = RangeOf(type);
  const auto zpOf = [&](int64_t c) { return zeroPoints ? static_cast<float>(zeroPoints[c]) : 0.0f; };
  if (channels == 1) {
    // Per tensor: one long run, chunked.
    const int64_t n = outer * inner, chunks = (n + kChunk - 1) / kChunk;
    ForRows(chunks, kChunk, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t start = c * kChunk;
        QuantizeLeaf(x + start, std::min(kChunk, n - start), scales[0], zpOf(0), r.lo, r.hi, out + start);
      }
    });
    return;
  }
  if (inner == 1) {
    // The quantized axis is the last: each row of `channels` elements carries every parameter.
    std::vector<float> zps(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) zps[c] = zpOf(c);
    ForRows(outer, channels, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) QuantizeLeafPerElement(x + o * channels, channels, scales, zps.data(), r.lo, r.hi, out + o * channels);
    });
    return;
  }
  ForRows(outer * channels, inner, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = row % channels;
      QuantizeLeaf(x + row * inner, inner, scales[c], zpOf(c), r.lo, r.hi, out + row * inner);
    }
  });
}

namespace {

// DequantizeLinear on the last axis: every element of a row has its own parameters.
template <typename T>
void DequantizeLastAxis(const T* x, int64_t outer, int64_t channels, const float* scales, const int32_t* zeroPoints, float* y) {
  ForRows(outer, channels, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const T* in = x + o * channels;
      float* out = y + o * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t d = static_cast<int64_t>(in[c]) - (zeroPoints ? zeroPoints[c] : 0);
        out[c] = static_cast<float>(static_cast<double>(d) * static_cast<double>(scales[c]));
      }
    }
  });
}

}  // namespace

void DequantizeAxis(const void* x, DequantSource source, int64_t outer, int64_t channels, int64_t inner,
                    const float* scales, const int32_t* zeroPoints, float* y) {
  if (inner == 1 && channels > 1) {
    // (double products of 8-bit differences and float scales are exact, so one rounding as above.)
    switch (source) {
      case DequantSource::kUint8: return DequantizeLastAxis(static_cast<const uint8_t*>(x), outer, channels, scales, zeroPoints, y);
      case DequantSource::kInt8: return DequantizeLastAxis(static_cast<const int8_t*>(x), outer, channels, scales, zeroPoints, y);
      case DequantSource::kInt32: return DequantizeLastAxis(static_cast<const int32_t*>(x), outer, channels, scales, zeroPoints, y);
    }
  }
  // Per tensor or per axis alike: rows of `inner` elements (per tensor: chunks) with one scale each.
  const bool perTensor = channels == 1;
  const int64_t rowElements = perTensor ? kChunk : inner;
  const int64_t total = outer * channels * inner;
  const int64_t rows = perTensor ? (total + kChunk - 1) / kChunk : outer * channels;
  ForRows(rows, rowElements, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = perTensor ? 0 : row % channels;
      const int64_t start = row * rowElements;
      const int64_t n = std::min(rowElements, total - start);
      const int32_t zp = zeroPoints ? zeroPoints[c] : 0;
      switch (source) {
        case DequantSource::kUint8: DequantizeLeafU8(static_cast<const uint8_t*>(x) + start, n, scales[c], zp, y + start); break;
        case DequantSource::kInt8: DequantizeLeafS8(static_cast<const int8_t*>(x) + start, n, scales[c], zp, y + start); break;
        case DequantSource::kInt32: DequantizeLeafS32(static_cast<const int32_t*>(x) + start, n, scales[c], zp, y + start); break;
      }
    }
  });
}

}  // namespace switchyard
