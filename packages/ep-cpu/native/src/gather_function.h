// JS function for Gather on tensors of any element type, with int32 or int64
// indices (negative ones count from the end; out-of-range ones are an INVALID_ARGUMENT error, checked
// before anything is written). [sync], on the calling thread's OpenMP team. GatherElements and
// ScatterElements: elements_index_function.h.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] gather(data, indices, dst, outer, axisDim, inner, threads?): data is [outer, axisDim, inner],
// dst [outer, indices.length, inner]: ONNX Gather along any axis.
Napi::Value GatherJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
