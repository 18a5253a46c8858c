// JS functions for ONNX NonZero on typed arrays of any numeric type (the TS kernel serves strings).
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] nonZeroCount(x, dtype, dims): number — how many elements of x (the typed array core keeps `dtype`
// in, of dims' element count) are not zero: for float32/float64 -0 is zero and NaN is not; for
// float16/bfloat16 the bits ±0 are the zeros; for integers and bool, any value but 0.
Napi::Value NonZeroCountJs(const Napi::CallbackInfo& info);

// [sync] nonZeroFill(x, dtype, dims, out): void — out (a BigInt64Array of dims.length × count) gets the
// coordinates of the non-zero elements, row-major order, one row per axis.
Napi::Value NonZeroFillJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
