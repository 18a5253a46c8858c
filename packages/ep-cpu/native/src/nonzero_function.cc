#include "nonzero_function.h"

#include <cstdint>
#include <string>
#include <vector>

#include <switchyard/errors.h>
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;

enum class Kind { kFloat, kHalf, kInteger };

struct DtypeInfo {
  const char* name;
  napi_typedarray_type storage;
  Kind kind;
};

constexpr DtypeInfo kDtypes[] = {
    {"float32", napi_float32_array, Kind::kFloat},  {"float64", napi_float64_array, Kind::kFloat},  {"float16", napi_uint16_array, Kind::kHalf},
    {"bfloat16", napi_uint16_array, Kind::kHalf},   {"int8", napi_int8_array, Kind::kInteger},      {"uint8", napi_uint8_array, Kind::kInteger},
    {"int16", napi_int16_array, Kind::kInteger},    {"uint16", napi_uint16_array, Kind::kInteger},  {"int32", napi_int32_array, Kind::kInteger},
    {"uint32", napi_uint32_array, Kind::kInteger},  {"int64", napi_bigint64_array, Kind::kInteger}, {"uint64", napi_biguint64_array, Kind::kInteger},
    {"bool", napi_uint8_array, Kind::kInteger},
};

// x (argument 0) checked against dtype (argument 1) and dims (argument 2): the storage core keeps the dtype
// in, of dims' element count.
struct Source {
  ElementsView x;
  Kind kind;
  std::vector<int64_t> dims;
};

Source ReadSource(const Napi::CallbackInfo& info, const char* ctx) {
  Napi::Env env = info.Env();
  Source s;
  s.x = ExpectElements(info, 0, -1, ctx, "x");
  const std::string name = ExpectName(info, 1, ctx, "dtype");
  const DtypeInfo* dtype = nullptr;
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) dtype = &d;
  }
  if (!dtype) ThrowArgument(env, ctx, "dtype '" + name + "' is not a numeric dtype or bool");
  if (s.x.type != dtype->storage) ThrowArgument(env, ctx, "x is not the typed array that holds " + name);
  s.kind = dtype->kind;
  s.dims = ExpectIntegerList(info, 2, kMaxViewRank, 0, kMaxSafe, ctx, "dims");
  if (CheckedProduct(env, s.dims, ctx, "dims") != s.x.length) ThrowArgument(env, ctx, "x does not have dims' element count");
  return s;
}

// Calls f(test) with test(i) = whether element i of the source is not zero.
template <typename F>
void WithTest(const Source& s, F&& f) {
  const void* d = s.x.data;
  if (s.kind == Kind::kFloat) {
    if (s.x.type == napi_float32_array) return f([p = static_cast<const float*>(d)](int64_t i) { return p[i] != 0.0f; });
    return f([p = static_cast<const double*>(d)](int64_t i) { return p[i] != 0.0; });
  }
  if (s.kind == Kind::kHalf) return f([p = static_cast<const uint16_t*>(d)](int64_t i) { return (p[i] & 0x7fffu) != 0; });
  switch (s.x.elementSize) {
    case 1: return f([p = static_cast<const uint8_t*>(d)](int64_t i) { return p[i] != 0; });
    case 2: return f([p = static_cast<const uint16_t*>(d)](int64_t i) { return p[i] != 0; });
    case 4: return f([p = static_cast<const uint32_t*>(d)](int64_t i) { return p[i] != 0; });
    default: return f([p = static_cast<const uint64_t*>(d)](int64_t i) { return p[i] != 0; });
  }
}

}  // namespace

Napi::Value NonZeroCountJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "nonZeroCount";
  const Source s = ReadSource(info, ctx);
  int64_t count = 0;
  WithTest(s, [&](auto test) {
    for (int64_t i = 0; i < s.x.length; ++i) count += test(i) ? 1 : 0;
  });
  return Napi::Number::New(env, static_cast<double>(count));
}

Napi::Value NonZeroFillJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "nonZeroFill";
  const Source s = ReadSource(info, ctx);
  const std::vector<int64_t>& dims = s.dims;
  const ElementsView out = ExpectElements(info, 3, -1, ctx, "out");
  if (out.type != napi_bigint64_array) ThrowArgument(env, ctx, "out must be a BigInt64Array");
  const int64_t rank = static_cast<int64_t>(dims.size());
  // A scalar has no coordinates: out is [0, count], empty whatever the count.
  if (rank == 0) {
    if (out.length != 0) ThrowArgument(env, ctx, "out must be empty for a scalar x");
    return env.Undefined();
  }
  if (out.length % rank != 0) ThrowArgument(env, ctx, "out's length must be a multiple of the rank");
  const int64_t n = out.length / rank;
  auto* o = static_cast<int64_t*>(out.data);
  int64_t hit = 0;
  WithTest(s, [&](auto test) {
    // Coordinates by an odometer over dims (no division per element). Hits past n are counted, not
    // written, so an out sized for another count cannot be overrun and is reported below.
    std::vector<int64_t> coord(dims.size(), 0);
    for (int64_t i = 0; i < s.x.length; ++i) {
      if (test(i)) {
        if (hit < n) {
          for (int64_t k = 0; k < rank; ++k) o[k * n + hit] = coord[k];
        }
        ++hit;
      }
      for (int64_t k = rank - 1; k >= 0; --k) {
        if (++coord[k] < dims[k]) break;
        coord[k] = 0;
      }
    }
  });
  if (hit != n) ThrowArgument(env, ctx, "out holds " + std::to_string(n) + " coordinates per axis, x has " + std::to_string(hit) + " non-zero elements");
  return env.Undefined();
}

}  // namespace switchyard
