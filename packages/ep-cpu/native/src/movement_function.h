// JS functions for the dtype-generic data movement: strided copies (Transpose, Slice, Expand, Tile,
// Depth/SpaceToDepth), Concat, Split and Trilu. Every tensor is a typed array of any element type (all of one
// call's tensors of one type); sizes and offsets are in elements. All [sync]: they are memory-bound and
// short, so they run on the calling thread's OpenMP team (ThreadScope) without a Promise.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] copyStrided(src, offset, strides, dims, dst, threads?): dst (dense, Π dims elements) = the view
// src[offset + Σ i_k · strides[k]] over dims, row-major. Strides may be negative or zero; every address
// the view reaches must lie inside src.
Napi::Value CopyStridedJs(const Napi::CallbackInfo& info);

// [sync] concat(srcs, dst, outer, runs, threads?): for each of `outer` rows, dst holds runs[i] elements
// of srcs[i] after one another (srcs[i] has outer · runs[i] elements): Concat along any axis.
Napi::Value ConcatJs(const Napi::CallbackInfo& info);

// [sync] split(src, dsts, outer, runs, threads?): the inverse of concat.
Napi::Value SplitJs(const Napi::CallbackInfo& info);

// [sync] trilu(x, y, rows, cols, k, upper, threads?): x and y hold matrices of [rows, cols]; y keeps the
// upper (j − i ≥ k) or lower (j − i ≤ k) triangle of each and zeroes the rest (every dtype's zero is
// all-zero bytes). Each row is one zero fill and one copy.
Napi::Value TriluJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
