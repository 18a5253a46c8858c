// Reading tensors of any element type, and small integer lists, from JS for the dtype-generic kernels
// (data movement, Cast, reductions). Main thread only. Every failure throws a coded TypeError naming the
// argument; messages are built only on failure, so a good call allocates no strings.
#pragma once

#include <napi.h>

#include <cstdint>
#include <vector>

namespace switchyard {

// The most axes a dtype-generic kernel takes: ONNX tensors have a handful, and Tile / DepthToSpace
// double the rank of the view they copy.
constexpr int kMaxViewRank = 32;

// A typed array's memory: element size 1, 2, 4 or 8 bytes. `holder` as Float32View's.
struct ElementsView {
  void* data = nullptr;
  int64_t length = 0;
  int elementSize = 0;
  napi_typedarray_type type = napi_uint8_array;
  Napi::Value holder;
};

// info[index] must be a typed array (any element type); `expected` >= 0 also checks its length.
ElementsView ExpectElements(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name);

// As ExpectElements, and of `like`'s array type (a copy between them moves whole elements).
ElementsView ExpectElementsLike(const Napi::CallbackInfo& info, size_t index, const ElementsView& like, int64_t expected, const char* ctx,
                                const char* name);

// info[index] must be an Int32Array or a BigInt64Array (the index tensors of Gather and friends).
ElementsView ExpectIndices(const Napi::CallbackInfo& info, size_t index, const char* ctx);

// info[index] must be a Float32Array of `expected` elements (or any length when expected < 0).
ElementsView ExpectFloats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name);

// ExpectFloats, or an empty view for null / undefined.
ElementsView OptionalFloats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name);

// An integer in [min, max].
int64_t ExpectInteger(const Napi::CallbackInfo& info, size_t index, int64_t min, int64_t max, const char* ctx, const char* name);

// A JS Array of at most `maxLength` safe integers, each in [min, max].
std::vector<int64_t> ExpectIntegerList(const Napi::CallbackInfo& info, size_t index, size_t maxLength, int64_t min, int64_t max,
                                       const char* ctx, const char* name);

// A JS Array of typed arrays (at most `maxLength`), each of `like`'s array type.
std::vector<ElementsView> ExpectElementsList(const Napi::CallbackInfo& info, size_t index, const ElementsView& like, size_t maxLength,
                                             const char* ctx, const char* name);

// A number or undefined: the OpenMP team size (0 = the default).
int ReadThreadCount(const Napi::CallbackInfo& info, size_t index, const char* ctx);

// A string argument (short: an op or dtype name).
std::string ExpectName(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name);

// Throws a coded INVALID_ARGUMENT TypeError "<ctx>: <message>".
[[noreturn]] void ThrowArgument(Napi::Env env, const char* ctx, const std::string& message);

// The product of dims, checked: throws when it passes 2^53 (no typed array is that long).
int64_t CheckedProduct(Napi::Env env, const std::vector<int64_t>& dims, const char* ctx, const char* name);

}  // namespace switchyard
