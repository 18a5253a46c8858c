#include "cast_function.h"

#include <string>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

struct DtypeInfo {
  const char* name;
  vec::Dtype dtype;
  napi_typedarray_type storage;
};

// Each dtype, and the typed array core keeps it in.
constexpr DtypeInfo kDtypes[] = {
    {"float32", vec::Dtype::kFloat32, napi_float32_array}, {"float64", vec::Dtype::kFloat64, napi_float64_array},
    {"float16", vec::Dtype::kFloat16, napi_uint16_array},  {"bfloat16", vec::Dtype::kBfloat16, napi_uint16_array},
    {"int8", vec::Dtype::kInt8, napi_int8_array},          {"uint8", vec::Dtype::kUint8, napi_uint8_array},
    {"int16", vec::Dtype::kInt16, napi_int16_array},       {"uint16", vec::Dtype::kUint16, napi_uint16_array},
    {"int32", vec::Dtype::kInt32, napi_int32_array},       {"uint32", vec::Dtype::kUint32, napi_uint32_array},
    {"int64", vec::Dtype::kInt64, napi_bigint64_array},    {"uint64", vec::Dtype::kUint64, napi_biguint64_array},
    {"bool", vec::Dtype::kBool, napi_uint8_array},
};

const DtypeInfo& ReadDtype(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* what) {
  const std::string name = ExpectName(info, index, ctx, what);
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) return d;
  }
  ThrowArgument(info.Env(), ctx, std::string(what) + " '" + name + "' is not a dtype cast converts natively");
}

}  // namespace

Napi::Value CastJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "cast";
  const ElementsView src = ExpectElements(info, 0, -1, ctx, "src");
  const DtypeInfo& from = ReadDtype(info, 1, ctx, "from");
  const ElementsView dst = ExpectElements(info, 2, src.length, ctx, "dst");
  const DtypeInfo& to = ReadDtype(info, 3, ctx, "to");
  const int threads = ReadThreadCount(info, 4, ctx);
  if (src.type != from.storage) ThrowArgument(env, ctx, std::string("src is not the typed array that holds ") + from.name);
  if (dst.type != to.storage) ThrowArgument(env, ctx, std::string("dst is not the typed array that holds ") + to.name);
  if (src.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::CastLoop loop = VectorLoops().cast[static_cast<int>(from.dtype)][static_cast<int>(to.dtype)];
    const auto* s = static_cast<const uint8_t*>(src.data);
    auto* d = static_cast<uint8_t*>(dst.data);
    const int ss = src.elementSize, ds = dst.elementSize;
    ParallelRanges(src.length, GrainFor(ss + ds), [&](int64_t begin, int64_t end) { loop(s + begin * ss, d + begin * ds, end - begin); });
  });
  return env.Undefined();
}

}  // namespace switchyard
