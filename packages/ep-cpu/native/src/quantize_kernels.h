// Element-wise quantization (ONNX QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) as V8-free
// loops: vectorised by the compiler for each ISA (target_clones, chosen at load time) and threaded
// with OpenMP over the caller's team (ThreadScope). The arithmetic is the spec's, in float32:
// q = saturate(round_half_even(x / scale) + zero_point), with NaN quantized to 0 (as the TS kernels
// store it), and y = (q - zero_point) · scale.
#pragma once

#include <cstdint>

namespace switchyard {

// The 8-bit types a quantized tensor has.
enum class QuantType { kUint8, kInt8 };

// The types DequantizeLinear reads.
enum class DequantSource { kUint8, kInt8, kInt32 };

struct QuantRange {
  float lo;
  float hi;
};

QuantRange RangeOf(QuantType type);

struct QuantParams {
  float scale;
  int32_t zeroPoint;
};

// min(0, min x) and max(0, max x) over n elements; NaNs are skipped (they never compare smaller).
void MinMaxWithZero(const float* x, int64_t n, float* min, float* max);

// DynamicQuantizeLinear's uint8 parameters for that range, in float32 as the spec computes them:
// scale = (max - min) / 255, zero point = saturate(round_half_even(-min / scale)); an all-zero
// range gives scale 0 and zero point 0 (every element then quantizes to 0).
QuantParams DynamicQuantParams(float min, float max);

// Quantizes n elements with one scale and zero point into `type` (y is uint8_t* or int8_t*).
// Threaded over the team. scale 0 writes the zero point everywhere.
void QuantizeTensor(const float* x, int64_t n, QuantParams params, QuantType type, void* y);

// QuantizeLinear over x viewed as [outer, channels, inner]: element (o, c, i) uses scales[c] and
// zeroPoints[c] (channels = 1 is per tensor). zeroPoints null means 0.
void QuantizeAxis(const float* x, int64_t outer, int64_t channels, int64_t inner, const float* scales,
                  const int32_t* zeroPoints, QuantType type, void* y);

// DequantizeLinear likewise. int32 sources are computed in double and rounded once to float32, as the
// TS kernel does (their differences from the zero point need not fit a float's 24 bits).
void DequantizeAxis(const void* x, DequantSource source, int64_t outer, int64_t channels, int64_t inner,
                    const float* scales, const int32_t* zeroPoints, float* y);

// Quantizes a row of n floats with one scale / zero point into bytes (single-threaded; for callers
// that tile their own loops, e.g. quantizing into a channels-last layout).
void QuantizeRow(const float* x, int64_t n, QuantParams params, QuantType type, uint8_t* y);

}  // namespace switchyard
