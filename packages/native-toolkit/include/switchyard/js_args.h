// Reading and checking arguments that come from JS, shared by every Switchyard addon. Main thread
// only (these touch V8). Every failure throws a TypeError with code 'INVALID_ARGUMENT' naming the
// argument, so bad input never crashes.
#pragma once

#include <napi.h>

#include <switchyard/dims.h>

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard {

// A checked view of a Float32Array's memory. `holder` is what must stay referenced while async
// work reads or writes `data`.
struct Float32View {
  float* data = nullptr;
  size_t length = 0;
  Napi::Value holder;
};

bool IsNullish(const Napi::Value& value);

// `value` must be a Float32Array of exactly `expected` elements.
Float32View ExpectFloat32Array(Napi::Env env, const Napi::Value& value, int64_t expected, const std::string& what);

// The check of ExpectFloat32Array without throwing: fills `view` and returns true when it passes.
bool ReadFloat32Array(const Napi::Value& value, int64_t expected, Float32View* view);

// Throws the error ExpectFloat32Array gives for a `value` that failed ReadFloat32Array.
[[noreturn]] void ThrowFloat32ArrayMismatch(Napi::Env env, const Napi::Value& value, int64_t expected, const std::string& what);

// ExpectFloat32Array for per-run arguments: `describe()` builds the argument's name only when the
// check fails, so a good call allocates no message strings (they cost ~1 us each per argument).
template <typename Describe>
Float32View ExpectFloat32ArrayLazy(Napi::Env env, const Napi::Value& value, int64_t expected, Describe&& describe) {
  Float32View view;
  if (!ReadFloat32Array(value, expected, &view)) ThrowFloat32ArrayMismatch(env, value, expected, describe());
  return view;
}

// The element types the int8 paths exchange with JS.
enum class ElementType { kUint8, kInt8, kInt32, kFloat32 };

// A set of ElementTypes (bits), for the typed-array readers below.
constexpr unsigned Allow(ElementType type) { return 1u << static_cast<unsigned>(type); }
constexpr unsigned kAnyInt8 = Allow(ElementType::kUint8) | Allow(ElementType::kInt8);

const char* ElementTypeName(ElementType type);

// A checked view of a Uint8Array / Int8Array / Int32Array / Float32Array. `holder` as Float32View's.
struct TypedView {
  void* data = nullptr;
  size_t length = 0;
  ElementType type = ElementType::kUint8;
  Napi::Value holder;
};

// Fills `view` and returns true when `value` is a typed array of a type in `allowed` with `expected`
// elements (`expected` < 0: any length).
bool ReadTypedArray(const Napi::Value& value, unsigned allowed, int64_t expected, TypedView* view);

// Throws the coded TypeError for a `value` that failed ReadTypedArray.
[[noreturn]] void ThrowTypedArrayMismatch(Napi::Env env, const Napi::Value& value, unsigned allowed, int64_t expected, const std::string& what);

// ReadTypedArray or its error; `describe()` names the argument, built only on failure.
template <typename Describe>
TypedView ExpectTypedArrayLazy(Napi::Env env, const Napi::Value& value, unsigned allowed, int64_t expected, Describe&& describe) {
  TypedView view;
  if (!ReadTypedArray(value, allowed, expected, &view)) ThrowTypedArrayMismatch(env, value, allowed, expected, describe());
  return view;
}

// ExpectTypedArrayLazy, or an empty view when `value` is null or undefined.
template <typename Describe>
TypedView OptionalTypedArrayLazy(Napi::Env env, const Napi::Value& value, unsigned allowed, int64_t expected, Describe&& describe) {
  return IsNullish(value) ? TypedView{} : ExpectTypedArrayLazy(env, value, allowed, expected, describe);
}

// An options object (the constructors' single argument).
Napi::Object ExpectObject(Napi::Env env, const Napi::Value& value, const std::string& what);

// Positional arguments (a function's own parameters rather than an options object's keys); `what`
// names the argument in the error.
int64_t ExpectInt(Napi::Env env, const Napi::Value& value, const std::string& what);
// A string with no NUL bytes; non-empty unless `allowEmpty`.
std::string ExpectString(Napi::Env env, const Napi::Value& value, const std::string& what, bool allowEmpty = false);
// An array of non-negative safe integers of at most `maxRank` entries.
Dims ExpectDims(Napi::Env env, const Napi::Value& value, const std::string& what, uint32_t maxRank = kMaxRank);

// Array of non-negative safe integers under `key`; `fallback` when absent and not required.
Dims ReadDims(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool required,
              const Dims& fallback = {});

// Array of numbers (NaN rejected; at most 64) under `key`; empty when absent and not required.
std::vector<double> ReadNumbers(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool required);

int64_t ReadInt(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, int64_t fallback);

// A finite-or-infinite number (NaN rejected); `fallback` when absent.
double ReadNumber(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, double fallback);

// A string; `fallback` when absent.
std::string ReadString(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context,
                       const std::string& fallback);

bool ReadBool(Napi::Env env, const Napi::Object& options, const char* key, const std::string& context, bool fallback);

// Float32Array under `key`, or a view with data == nullptr when absent; length checked when present.
Float32View ReadOptionalFloat32Array(Napi::Env env, const Napi::Object& options, const char* key, int64_t expected,
                                     const std::string& context);

Napi::Array DimsToJs(Napi::Env env, const Dims& dims);

}  // namespace switchyard
