// JS function for ONNX TopK on float32 (the TS kernel serves other types).
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] topK(x, outer, len, inner, k, largest, values, indices, threads?): void. x is [outer, len, inner];
// values (Float32Array) and indices (BigInt64Array) are [outer, k, inner]: the k largest (or smallest) of
// each lane along len, best first, equal values in index order, NaN after every number (as numpy sorts).
Napi::Value TopKJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
