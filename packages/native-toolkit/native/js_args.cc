#include <switchyard/js_args.h>

#include <cmath>

#include <switchyard/errors.h>

namespace switchyard {

namespace {

std::string DescribeValue(const Napi::Value& value) {
  if (value.IsUndefined()) return "undefined";
  if (value.IsNull()) return "null";
  if (value.IsTypedArray()) {
    switch (value.As<Napi::TypedArray>().TypedArrayType()) {
      case napi_int8_array: return "Int8Array";
      case napi_uint8_array: return "Uint8Array";
      case napi_uint8_clamped_array: return "Uint8ClampedArray";
      case napi_int16_array: return "Int16Array";
      case napi_uint16_array: return "Uint16Array";
      case napi_int32_array: return "Int32Array";
      case napi_uint32_array: return "Uint32Array";
      case napi_float32_array: return "Float32Array";
      case napi_float64_array: return "Float64Array";
      case napi_bigint64_array: return "BigInt64Array";
      case napi_biguint64_array: return "BigUint64Array";
      default: return "a typed array";
    }
  }
  if (value.IsArray()) return "an Array";
  if (value.IsNumber()) return "a number";
  if (value.IsString()) return "a string";
  if (value.IsObject()) return "an object";
  return "a value of another type";
}

int64_t ToSafeInteger(Napi::Env env, const Napi::Value& value, const std::string& what) {
  if (!value.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be an integer, got " + DescribeValue(value), true);
  double d = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0) {
    ThrowJs(env, "INVALID_ARGUMENT", what + " must be an integer, got " + std::to_string(d), true);
  }
  return static_cast<int64_t>(d);
}

}  // namespace

bool IsNullish(const Napi::Value& value) { return value.IsUndefined() || value.IsNull(); }

bool ReadFloat32Array(const Napi::Value& value, int64_t expected, Float32View* view) {
  if (!value.IsTypedArray()) return false;
  auto typed = value.As<Napi::TypedArray>();
  if (typed.TypedArrayType() != napi_float32_array) return false;
  auto array = value.As<Napi::Float32Array>();
  if (static_cast<int64_t>(array.ElementLength()) != expected) return false;
  *view = Float32View{array.Data(), array.ElementLength(), value};
  return true;
}

void ThrowFloat32ArrayMismatch(Napi::Env env, const Napi::Value& value, int64_t expected, const std::string& what) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    ThrowJs(env, "INVALID_ARGUMENT", what + " must be a Float32Array, got " + DescribeValue(value), true);
  }
  ThrowJs(env, "INVALID_ARGUMENT",
          what + " must have " + std::to_string(expected) + " elements, got " +
              std::to_string(value.As<Napi::Float32Array>().ElementLength()),
          true);
}

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kUint8: return "Uint8Array";
    case ElementType::kInt8: return "Int8Array";
    case ElementType::kInt32: return "Int32Array";
    case ElementType::kFloat32: return "Float32Array";
  }
  return "a typed array";
}

namespace {

bool ElementTypeOf(napi_typedarray_type type, ElementType* out) {
  switch (type) {
    case napi_uint8_array: *out = ElementType::kUint8; return true;
    case napi_int8_array: *out = ElementType::kInt8; return true;
    case napi_int32_array: *out = ElementType::kInt32; return true;
    case napi_float32_array: *out = ElementType::kFloat32; return true;
    default: return false;
  }
}

std::string AllowedNames(unsigned allowed) {
  std::string names;
  for (ElementType t : {ElementType::kUint8, ElementType::kInt8, ElementType::kInt32, ElementType::kFloat32}) {
    if (!(allowed & Allow(t))) continue;
    if (!names.empty()) names += " or ";
    names += ElementTypeName(t);
  }
  return names;
}

}  // namespace

bool ReadTypedArray(const Napi::Value& value, unsigned allowed, int64_t expected, TypedView* view) {
  if (!value.IsTypedArray()) return false;
  auto typed = value.As<Napi::TypedArray>();
  ElementType type;
  if (!ElementTypeOf(typed.TypedArrayType(), &type) || !(allowed & Allow(type))) return false;
  if (expected >= 0 && static_cast<int64_t>(typed.ElementLength()) != expected) return false;
  Napi::ArrayBuffer buffer = typed.ArrayBuffer();
  *view = TypedView{static_cast<uint8_t*>(buffer.Data()) + typed.ByteOffset(), typed.ElementLength(), type, value};
  return true;
}

void ThrowTypedArrayMismatch(Napi::Env env, const Napi::Value& value, unsigned allowed, int64_t expected, const std::string& what) {
  ElementType type;
  if (!value.IsTypedArray() || !ElementTypeOf(value.As<Napi::TypedArray>().TypedArrayType(), &type) || !(allowed & Allow(type))) {
    ThrowJs(env, "INVALID_ARGUMENT", what + " must be a " + AllowedNames(allowed) + ", got " + DescribeValue(value), true);
  }
  ThrowJs(env, "INVALID_ARGUMENT",
          what + " must have " + std::to_string(expected) + " elements, got " + std::to_string(value.As<Napi::TypedArray>().ElementLength()), true);
}

Float32View ExpectFloat32Array(Napi::Env env, const Napi::Value& value, int64_t expected, const std::string& what) {
  Float32View view;
  if (!ReadFloat32Array(value, expected, &view)) ThrowFloat32ArrayMismatch(env, value, expected, what);
  return view;
}

Napi::Object ExpectObject(Napi::Env env, const Napi::Value& value, const std::string& what) {
  if (!value.IsObject() || value.IsArray()) {
    ThrowJs(env, "INVALID_ARGUMENT", what + " must be an options object, got " + DescribeValue(value), true);
  }
  return value.As<Napi::Object>();
}

Dims ExpectDims(Napi::Env env, const Napi::Value& value, const std::string& what, uint32_t maxRank) {
  if (!value.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be an array of integers, got " + DescribeValue(value), true);
  auto array = value.As<Napi::Array>();
  if (array.Length() > maxRank) ThrowJs(env, "INVALID_ARGUMENT", what + " has more than " + std::to_string(maxRank) + " entries", true);
  Dims dims(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    dims[i] = ToSafeInteger(env, array.Get(i), what + "[" + std::to_string(i) + "]");
    if (dims[i] < 0) ThrowJs(env, "INVALID_ARGUMENT", what + "[" + std::to_string(i) + "] must be >= 0", true);
  }
  return dims;
}

Dims ReadDims(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool required,
              const Dims& fallback) {
  Napi::Value value = options.Get(key);
  const std::string what = context + ": options." + key;
  if (IsNullish(value)) {
    if (required) ThrowJs(env, "INVALID_ARGUMENT", what + " is required", true);
    return fallback;
  }
  return ExpectDims(env, value, what);
}

int64_t ExpectInt(Napi::Env env, const Napi::Value& value, const std::string& what) { return ToSafeInteger(env, value, what); }

std::string ExpectString(Napi::Env env, const Napi::Value& value, const std::string& what, bool allowEmpty) {
  if (!value.IsString()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be a string, got " + DescribeValue(value), true);
  std::string text = value.As<Napi::String>().Utf8Value();
  if (!allowEmpty && text.empty()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be a non-empty string", true);
  if (text.find('\0') != std::string::npos) ThrowJs(env, "INVALID_ARGUMENT", what + " must not contain NUL characters", true);
  return text;
}

std::vector<double> ReadNumbers(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool required) {
  Napi::Value value = options.Get(key);
  const std::string what = context + ": options." + key;
  if (IsNullish(value)) {
    if (required) ThrowJs(env, "INVALID_ARGUMENT", what + " is required", true);
    return {};
  }
  if (!value.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be an array of numbers, got " + DescribeValue(value), true);
  auto array = value.As<Napi::Array>();
  if (array.Length() > 64) ThrowJs(env, "INVALID_ARGUMENT", what + " has more than 64 entries", true);
  std::vector<double> numbers(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", what + "[" + std::to_string(i) + "] must be a number, got " + DescribeValue(item), true);
    numbers[i] = item.As<Napi::Number>().DoubleValue();
    if (std::isnan(numbers[i])) ThrowJs(env, "INVALID_ARGUMENT", what + "[" + std::to_string(i) + "] must not be NaN", true);
  }
  return numbers;
}

int64_t ReadInt(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, int64_t fallback) {
  Napi::Value value = options.Get(key);
  if (IsNullish(value)) return fallback;
  return ToSafeInteger(env, value, context + ": options." + key);
}

bool ReadBool(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool fallback) {
  Napi::Value value = options.Get(key);
  if (IsNullish(value)) return fallback;
  if (!value.IsBoolean()) ThrowJs(env, "INVALID_ARGUMENT", context + ": options." + key + " must be a boolean, got " + DescribeValue(value), true);
  return value.As<Napi::Boolean>().Value();
}

double ReadNumber(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, double fallback) {
  Napi::Value value = options.Get(key);
  if (IsNullish(value)) return fallback;
  const std::string what = context + ": options." + key;
  if (!value.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be a number, got " + DescribeValue(value), true);
  const double d = value.As<Napi::Number>().DoubleValue();
  if (std::isnan(d)) ThrowJs(env, "INVALID_ARGUMENT", what + " must not be NaN", true);
  return d;
}

std::string ReadString(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context,
                       const std::string& fallback) {
  Napi::Value value = options.Get(key);
  if (IsNullish(value)) return fallback;
  if (!value.IsString()) ThrowJs(env, "INVALID_ARGUMENT", context + ": options." + key + " must be a string, got " + DescribeValue(value), true);
  return value.As<Napi::String>().Utf8Value();
}

Float32View ReadOptionalFloat32Array(Napi::Env env, const Napi::Object& options, const char* key, int64_t expected,
                                     const std::string& context) {
  Napi::Value value = options.Get(key);
  if (IsNullish(value)) return Float32View{};
  return ExpectFloat32Array(env, value, expected, context + ": options." + key);
}

Napi::Array DimsToJs(Napi::Env env, const Dims& dims) {
  auto array = Napi::Array::New(env, dims.size());
  for (size_t i = 0; i < dims.size(); ++i) array.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(dims[i])));
  return array;
}

}  // namespace switchyard
