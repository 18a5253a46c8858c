#include "int8_epilogue.h"

namespace switchyard {

namespace {

// As in quantize_kernels.cc: adding and subtracting 1.5 · 2^23 rounds half to even for |v| < 2^22.
constexpr float kRoundMagic = 12582912.0f;

// Saturate(round_half_even(q) + zeroPoint) for a product q already rounded to float.
inline uint8_t Saturate(float q, float zeroPoint, float lo, float hi) {
  const float qlo = lo - zeroPoint - 1.0f, qhi = hi - zeroPoint + 1.0f;
  q = q < qlo ? qlo : q;
  q = q > qhi ? qhi : q;
  float v = ((q + kRoundMagic) - kRoundMagic) + zeroPoint;
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  v = v == v ? v : 0.0f;  // a NaN product (an infinite multiplier times 0) stores 0, as the TS kernels' typed arrays do
  return static_cast<uint8_t>(static_cast<int32_t>(v));
}

// float((acc + bias) · multiplier), the sum exact in double and the product rounded once to double, then
// to float: what the TS kernels compute. Where |acc + bias| < 2^24 the float product is the same value
// (the sum converts exactly and a product of two floats rounds once either way), several times faster.
inline float ProductInDouble(int32_t acc, int32_t bias, float multiplier) {
  return static_cast<float>((static_cast<double>(acc) + static_cast<double>(bias)) * static_cast<double>(multiplier));
}

inline float ProductInFloat(int32_t acc, int32_t bias, float multiplier) { return static_cast<float>(acc + bias) * multiplier; }

// Whether every |acc[i] + bias| of the row is below 2^24 (with |bias| < 2^23, |acc| < 2^23 suffices).
inline bool FitsFloat(const int32_t* acc, int64_t n, int32_t bias) {
  constexpr int32_t kLimit = 1 << 23;
  if (bias <= -kLimit || bias >= kLimit) return false;
  int32_t lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = acc[i] < lo ? acc[i] : lo;
    hi = acc[i] > hi ? acc[i] : hi;
  }
  return lo > -kLimit && hi < kLimit;
}

}  // namespace

#define SWITCHYARD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

SWITCHYARD_CLONES
void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, float multiplier, float zeroPoint, RequantBounds bounds, uint8_t* out) {
  if (FitsFloat(acc, n, bias)) {
    for (int64_t i = 0; i < n; ++i) out[i] = Saturate(ProductInFloat(acc[i], bias, multiplier), zeroPoint, bounds.lo, bounds.hi);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Saturate(ProductInDouble(acc[i], bias, multiplier), zeroPoint, bounds.lo, bounds.hi);
  }
}

SWITCHYARD_CLONES
void RequantizeRowPerElement(const int32_t* acc, int64_t n, const int32_t* bias, const float* multipliers, float zeroPoint, RequantBounds bounds, uint8_t* out) {
  if (FitsFloat(acc, n, 0) && (!bias || FitsFloat(bias, n, 0))) {
    if (bias) {
      for (int64_t i = 0; i < n; ++i) out[i] = Saturate(ProductInFloat(acc[i], bias[i], multipliers[i]), zeroPoint, bounds.lo, bounds.hi);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = Saturate(ProductInFloat(acc[i], 0, multipliers[i]), zeroPoint, bounds.lo, bounds.hi);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = Saturate(ProductInDouble(acc[i], bias ? bias[i] : 0, multipliers[i]), zeroPoint, bounds.lo, bounds.hi);
}

namespace {

// The Relu kernels' `x < 0 ? 0 : x`, over a finished row.
inline void ReluRow(int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = out[i] < 0.0f ? 0.0f : out[i];
}

}  // namespace

SWITCHYARD_CLONES
void ScaleRow(const int32_t* acc, int64_t n, float scale, bool relu, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(acc[i]) * scale;
  if (relu) ReluRow(n, out);
}

SWITCHYARD_CLONES
void ScaleBiasRow(const int32_t* acc, int64_t n, float scale, float bias, bool relu, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = static_cast<float>(acc[i]) * scale;
    out[i] = scaled + bias;
  }
  if (relu) ReluRow(n, out);
}

SWITCHYARD_CLONES
void ScaleBiasRowPerElement(const int32_t* acc, int64_t n, const float* scales, const float* bias, bool relu, float* out) {
  if (bias) {
    for (int64_t i = 0; i < n; ++i) {
      const float scaled = static_cast<float>(acc[i]) * scales[i];
      out[i] = scaled + bias[i];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(acc[i]) * scales[i];
  }
  if (relu) ReluRow(n, out);
}

#undef SWITCHYARD_CLONES

}  // namespace switchyard
