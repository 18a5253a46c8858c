#include "int8_options.h"

#include <switchyard/errors.h>

namespace switchyard {

QuantType ReadQuantType(Napi::Env env, const Napi::Object& options, const char* key, const std::string& ctx, QuantType fallback) {
  const std::string value = ReadString(env, options, key, ctx, fallback == QuantType::kUint8 ? "uint8" : "int8");
  if (value == "uint8") return QuantType::kUint8;
  if (value == "int8") return QuantType::kInt8;
  ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options." + key + " must be 'uint8' or 'int8', got '" + value + "'", true);
}

ElementType ElementTypeOf(QuantType type) { return type == QuantType::kUint8 ? ElementType::kUint8 : ElementType::kInt8; }

WeightSplit ReadWeightSplit(Napi::Env env, const Napi::Object& options, const std::string& ctx) {
  const std::string value = ReadString(env, options, "weightSplit", ctx, "auto");
  if (value == "auto") return WeightSplit::kAuto;
  if (value == "always") return WeightSplit::kAlways;
  ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.weightSplit must be 'auto' or 'always', got '" + value + "'", true);
}

WeightsOption ReadWeightsOption(Napi::Env env, const Napi::Object& options, int64_t count, int64_t channels, const std::string& ctx) {
  WeightsOption w;
  w.weights = ExpectTypedArrayLazy(env, options.Get("weights"), kAnyInt8, count, [&] { return ctx + ": options.weights"; });
  const Napi::Value zp = options.Get("weightZeroPoints");
  if (IsNullish(zp)) return w;
  if (!ReadTypedArray(zp, Allow(w.weights.type), -1, &w.zeroPoints) || (w.zeroPoints.length != 1 && static_cast<int64_t>(w.zeroPoints.length) != channels)) {
    ThrowJs(env, "INVALID_ARGUMENT",
            ctx + ": options.weightZeroPoints must be a " + ElementTypeName(w.weights.type) + " (the weights' type) of 1 or " + std::to_string(channels) + " elements",
            true);
  }
  return w;
}

TypedView ReadZeroPointArg(const Napi::CallbackInfo& info, size_t index, ElementType type, const char* method, const char* name) {
  return OptionalTypedArrayLazy(info.Env(), info[index], Allow(type), 1, [&] { return std::string(method) + ": " + name; });
}

void ExpectNullArg(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name, const char* why) {
  if (!IsNullish(info[index])) ThrowJs(info.Env(), "INVALID_ARGUMENT", std::string(method) + ": " + name + " must be null (" + why + ")", true);
}

}  // namespace switchyard
