// JS function for ONNX Cast between float32, float64, float16, bfloat16, the 8- to 64-bit integers and
// bool, with the TS kernel's rules (math/cast.ts): floats truncate toward zero into integers, wrapping
// modulo 2^32 for ≤ 32-bit targets and saturating for 64-bit ones (NaN → 0); narrowing floats round to
// nearest even; anything non-zero (NaN too) is true. [sync].
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] cast(src, from, dst, to, threads?): from / to are ONNX dtype names ('float32', 'float16',
// 'bfloat16', 'float64', 'int8' … 'uint64', 'bool'); src and dst are the typed arrays core stores them in
// (float16/bfloat16 → Uint16Array, bool → Uint8Array, int64 → BigInt64Array), of equal length.
Napi::Value CastJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
