// The QDQ fusion's element-wise Add: DequantizeLinear(a), DequantizeLinear(b) → Add [→ Relu] →
// QuantizeLinear in one pass, each float step rounded as the unfused nodes round it (built with
// -ffp-contract=off): the fused output is identical to the unfused one. Per-tensor parameters; a and b
// share one shape.
#pragma once

#include <napi.h>

#include <cstdint>

#include "quantize_kernels.h"

namespace switchyard {

struct QuantizedAddParams {
  float aScale, bScale, yScale;
  float aZero, bZero, yZero;
  QuantType output;
  bool relu;
};

// y[i] = Q(relu?(fround(DQ(a[i]) + DQ(b[i])))) for n elements; a, b uint8 or int8 (aSigned / bSigned).
// Threaded over the caller's OpenMP team.
void QuantizedAdd(const void* a, bool aSigned, const void* b, bool bSigned, int64_t n, const QuantizedAddParams& params, void* y);

// [sync] quantizedAdd(a, aScale, aZero | null, b, bScale, bZero | null, yScale, yZero | null, y, relu, threads?)
// and [async] quantizedAddAsync(...): scales are Float32Array(1); zero points one element of their tensor's
// type; a, b, y 8-bit typed arrays of one length, y's type from yZero (uint8 when null).
Napi::Value QuantizedAddJs(const Napi::CallbackInfo& info);
Napi::Value QuantizedAddAsyncJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
