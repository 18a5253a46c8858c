#include "tensor_args.h"

#include <cmath>
#include <string>

#include <switchyard/errors.h>

namespace switchyard {

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;

int ElementSizeOf(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array:
      return 8;
    default:
      return 0;
  }
}

std::string Describe(const Napi::Value& value) {
  if (value.IsUndefined()) return "undefined";
  if (value.IsNull()) return "null";
  if (value.IsTypedArray()) return "a typed array of another type";
  if (value.IsArray()) return "an Array";
  if (value.IsNumber()) return "a number";
  if (value.IsString()) return "a string";
  return "a value of another type";
}

bool ReadView(const Napi::Value& value, ElementsView* view) {
  if (!value.IsTypedArray()) return false;
  auto typed = value.As<Napi::TypedArray>();
  const int size = ElementSizeOf(typed.TypedArrayType());
  if (size == 0) return false;
  view->data = static_cast<uint8_t*>(typed.ArrayBuffer().Data()) + typed.ByteOffset();
  view->length = static_cast<int64_t>(typed.ElementLength());
  view->elementSize = size;
  view->type = typed.TypedArrayType();
  view->holder = value;
  return true;
}

void CheckLength(Napi::Env env, const ElementsView& view, int64_t expected, const char* ctx, const char* name) {
  if (expected >= 0 && view.length != expected) {
    ThrowArgument(env, ctx, std::string(name) + " must have " + std::to_string(expected) + " elements, got " + std::to_string(view.length));
  }
}

}  // namespace

void ThrowArgument(Napi::Env env, const char* ctx, const std::string& message) {
  ThrowJs(env, "INVALID_ARGUMENT", std::string(ctx) + ": " + message, true);
}

ElementsView ExpectElements(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name) {
  ElementsView view;
  if (!ReadView(info[index], &view)) ThrowArgument(info.Env(), ctx, std::string(name) + " must be a typed array, got " + Describe(info[index]));
  CheckLength(info.Env(), view, expected, ctx, name);
  return view;
}

ElementsView ExpectElementsLike(const Napi::CallbackInfo& info, size_t index, const ElementsView& like, int64_t expected, const char* ctx,
                                const char* name) {
  ElementsView view = ExpectElements(info, index, expected, ctx, name);
  if (view.type != like.type) ThrowArgument(info.Env(), ctx, std::string(name) + " must be a typed array of the input's type");
  return view;
}

ElementsView ExpectIndices(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  const ElementsView v = ExpectElements(info, index, -1, ctx, "indices");
  if (v.type != napi_int32_array && v.type != napi_bigint64_array) ThrowArgument(info.Env(), ctx, "indices must be an Int32Array or a BigInt64Array");
  return v;
}

ElementsView ExpectFloats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name) {
  ElementsView view;
  if (!ReadView(info[index], &view) || view.type != napi_float32_array) {
    ThrowArgument(info.Env(), ctx, std::string(name) + " must be a Float32Array, got " + Describe(info[index]));
  }
  CheckLength(info.Env(), view, expected, ctx, name);
  return view;
}

ElementsView OptionalFloats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name) {
  if (info[index].IsUndefined() || info[index].IsNull()) return ElementsView{};
  return ExpectFloats(info, index, expected, ctx, name);
}

int64_t ExpectInteger(const Napi::CallbackInfo& info, size_t index, int64_t min, int64_t max, const char* ctx, const char* name) {
  const Napi::Value v = info[index];
  const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max)) || d != std::floor(d)) {
    ThrowArgument(info.Env(), ctx, std::string(name) + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                                       (v.IsNumber() ? std::to_string(d) : Describe(v)));
  }
  return static_cast<int64_t>(d);
}

std::vector<int64_t> ExpectIntegerList(const Napi::CallbackInfo& info, size_t index, size_t maxLength, int64_t min, int64_t max,
                                       const char* ctx, const char* name) {
  Napi::Env env = info.Env();
  if (!info[index].IsArray()) ThrowArgument(env, ctx, std::string(name) + " must be an Array of integers, got " + Describe(info[index]));
  auto array = info[index].As<Napi::Array>();
  const uint32_t n = array.Length();
  if (n > maxLength) ThrowArgument(env, ctx, std::string(name) + " has " + std::to_string(n) + " entries, at most " + std::to_string(maxLength) + " allowed");
  std::vector<int64_t> out(n);
  for (uint32_t i = 0; i < n; i++) {
    const Napi::Value v = array.Get(i);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
    if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max)) || d != std::floor(d) || std::fabs(d) > kMaxSafeInteger) {
      ThrowArgument(env, ctx, std::string(name) + "[" + std::to_string(i) + "] must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                  "], got " + (v.IsNumber() ? std::to_string(d) : Describe(v)));
    }
    out[i] = static_cast<int64_t>(d);
  }
  return out;
}

std::vector<ElementsView> ExpectElementsList(const Napi::CallbackInfo& info, size_t index, const ElementsView& like, size_t maxLength,
                                             const char* ctx, const char* name) {
  Napi::Env env = info.Env();
  if (!info[index].IsArray()) ThrowArgument(env, ctx, std::string(name) + " must be an Array of typed arrays, got " + Describe(info[index]));
  auto array = info[index].As<Napi::Array>();
  const uint32_t n = array.Length();
  if (n > maxLength) ThrowArgument(env, ctx, std::string(name) + " has " + std::to_string(n) + " entries, at most " + std::to_string(maxLength) + " allowed");
  std::vector<ElementsView> out(n);
  for (uint32_t i = 0; i < n; i++) {
    if (!ReadView(array.Get(i), &out[i]) || out[i].type != like.type) {
      ThrowArgument(env, ctx, std::string(name) + "[" + std::to_string(i) + "] must be a typed array of the other tensors' type");
    }
  }
  return out;
}

int ReadThreadCount(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  if (info[index].IsUndefined() || info[index].IsNull()) return 0;
  return static_cast<int>(ExpectInteger(info, index, 0, 1024, ctx, "threads"));
}

std::string ExpectName(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name) {
  if (!info[index].IsString()) ThrowArgument(info.Env(), ctx, std::string(name) + " must be a string, got " + Describe(info[index]));
  return info[index].As<Napi::String>().Utf8Value();
}

int64_t CheckedProduct(Napi::Env env, const std::vector<int64_t>& dims, const char* ctx, const char* name) {
  double p = 1;
  for (int64_t d : dims) {
    p *= static_cast<double>(d);
    if (p > kMaxSafeInteger) ThrowArgument(env, ctx, std::string(name) + ": the element count passes 2^53");
  }
  return static_cast<int64_t>(p);
}

}  // namespace switchyard
