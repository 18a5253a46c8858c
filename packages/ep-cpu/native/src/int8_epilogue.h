// What the int8 convolutions and matmuls do with a row of exact int32 results: requantize it to 8 bits
// (QLinearConv / QLinearMatMul) or scale it to float (the dynamic-quantization fusions). Vectorised per
// ISA (target_clones) and built with -ffp-contract=off: the arithmetic is the unfused graph's, step by
// step, so the results are bit-identical to the TS kernels' (no fused multiply-add).
#pragma once

#include <cstdint>

namespace switchyard {

// The saturation bounds of a requantized output (uint8 [0, 255], int8 [-128, 127]); a fused Relu
// raises `lo` to the zero point.
struct RequantBounds {
  float lo;
  float hi;
};

// out[i] = saturate(round_half_even(float((acc[i] + bias) · multiplier)) + zeroPoint): the product is
// taken in double and rounded once to float, as the TS kernels do (acc + bias may exceed float's 24 bits).
void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, float multiplier, float zeroPoint, RequantBounds bounds, uint8_t* out);

// out[i] = float(acc[i]) · scale (Cast then Mul), then `v < 0 ? 0 : v` with `relu` (as the Relu kernels: NaN and -0 stay).
void ScaleRow(const int32_t* acc, int64_t n, float scale, bool relu, float* out);

// out[i] = float(acc[i]) · scale + bias (Cast, Mul, then Add), then Relu as above.
void ScaleBiasRow(const int32_t* acc, int64_t n, float scale, float bias, bool relu, float* out);

// RequantizeRow with a multiplier and zero point per element (QLinearMatMul's per-column parameters on a row).
void RequantizeRowPerElement(const int32_t* acc, int64_t n, const int32_t* bias, const float* multipliers, float zeroPoint, RequantBounds bounds, uint8_t* out);

// ScaleRow / ScaleBiasRow with a scale and bias per element (a matmul's per-column parameters); bias may be null.
void ScaleBiasRowPerElement(const int32_t* acc, int64_t n, const float* scales, const float* bias, bool relu, float* out);

}  // namespace switchyard
