// JS functions for GatherElements and ScatterElements on tensors of any element type, with int32 or int64
// indices: negative ones count from the end; an out-of-range one is an INVALID_ARGUMENT error naming the
// first such index in row-major order (dst, a fresh output, may be partly written by then).
// [sync], on the calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] gatherElements(data, dataDims, indices, indicesDims, axis, dst, threads?): dst (shaped like
// indices) = data at each index's coordinates with the axis coordinate taken from the index. indices'
// dims may be smaller than data's off the axis.
Napi::Value GatherElementsJs(const Napi::CallbackInfo& info);

// [sync] scatterElements(data, dataDims, indices, indicesDims, updates, axis, reduction, dst, threads?):
// dst (data's shape) = data, then each update combined into dst at its index's coordinates, in row-major
// order of indices (a repeated position: the later update last). reduction is 'none', 'add', 'mul', 'max'
// or 'min'; floats combine in double and round once, integers wrap, as the TS kernel does. A Uint16Array or
// Uint8Array reduces as uint16 / uint8 integers: float16, bfloat16 and bool reductions are the caller's.
Napi::Value ScatterElementsJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
