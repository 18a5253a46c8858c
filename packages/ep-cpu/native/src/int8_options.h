// Reading the int8 classes' options and run arguments from JS (main thread; coded TypeErrors).
#pragma once

#include <napi.h>

#include <string>

#include "int8_weights.h"
#include <switchyard/js_args.h>
#include "quantize_kernels.h"

namespace switchyard {

// options[key] as 'uint8' or 'int8'; `fallback` when absent.
QuantType ReadQuantType(Napi::Env env, const Napi::Object& options, const char* key, const std::string& ctx, QuantType fallback);

ElementType ElementTypeOf(QuantType type);

// options.weightSplit: 'auto' (default) or 'always'.
WeightSplit ReadWeightSplit(Napi::Env env, const Napi::Object& options, const std::string& ctx);

// options.weights (Uint8Array | Int8Array of `count` elements) and options.weightZeroPoints (absent, or
// the weights' type with 1 or `channels` elements).
struct WeightsOption {
  TypedView weights;
  TypedView zeroPoints;  // data == nullptr when absent
  bool isSigned() const { return weights.type == ElementType::kInt8; }
};
WeightsOption ReadWeightsOption(Napi::Env env, const Napi::Object& options, int64_t count, int64_t channels, const std::string& ctx);

// A run argument of one element of `type`, or null (an empty view).
TypedView ReadZeroPointArg(const Napi::CallbackInfo& info, size_t index, ElementType type, const char* method, const char* name);

// A run argument that must be null or undefined.
void ExpectNullArg(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name, const char* why);

}  // namespace switchyard
