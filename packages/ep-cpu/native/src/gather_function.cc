#include "gather_function.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;

// Every index resolved into [0, size), or the coded error naming the first bad one.
std::vector<int64_t> ResolveIndices(Napi::Env env, const ElementsView& indices, int64_t size, const char* ctx) {
  std::vector<int64_t> out(static_cast<size_t>(indices.length));
  const bool wide = indices.type == napi_bigint64_array;
  const auto* i32 = static_cast<const int32_t*>(indices.data);
  const auto* i64 = static_cast<const int64_t*>(indices.data);
  int64_t bad = -1;
  for (int64_t k = 0; k < indices.length; k++) {
    const int64_t v = wide ? i64[k] : i32[k];
    const int64_t r = v < 0 ? v + size : v;
    if (r < 0 || r >= size) {
      bad = k;
      break;
    }
    out[static_cast<size_t>(k)] = r;
  }
  if (bad >= 0) {
    const int64_t v = wide ? i64[bad] : i32[bad];
    ThrowJs(env, "INVALID_ARGUMENT", std::string(ctx) + ": index " + std::to_string(v) + " is out of bounds for a dimension of size " + std::to_string(size));
  }
  return out;
}

void CopyElement(const uint8_t* src, uint8_t* dst, int es) {
  switch (es) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    default: std::memcpy(dst, src, 8); return;
  }
}

}  // namespace

Napi::Value GatherJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "gather";
  const ElementsView data = ExpectElements(info, 0, -1, ctx, "data");
  const ElementsView indices = ExpectIndices(info, 1, ctx);
  const int64_t outer = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "outer");
  const int64_t axisDim = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "axisDim");
  const int64_t inner = ExpectInteger(info, 5, 0, kMaxSafe, ctx, "inner");
  const int threads = ReadThreadCount(info, 6, ctx);
  const double dataCount = static_cast<double>(outer) * static_cast<double>(axisDim) * static_cast<double>(inner);
  if (dataCount != static_cast<double>(data.length)) ThrowArgument(env, ctx, "data must have outer × axisDim × inner elements");
  const double outCount = static_cast<double>(outer) * static_cast<double>(indices.length) * static_cast<double>(inner);
  if (outCount > static_cast<double>(kMaxSafe)) ThrowArgument(env, ctx, "the output passes 2^53 elements");
  const ElementsView dst = ExpectElementsLike(info, 2, data, static_cast<int64_t>(outCount), ctx, "dst");
  if (outCount == 0) return env.Undefined();
  const std::vector<int64_t> resolved = ResolveIndices(env, indices, axisDim, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const int es = data.elementSize;
    const int64_t n = indices.length, rowBytes = inner * es;
    const auto* src = static_cast<const uint8_t*>(data.data);
    auto* out = static_cast<uint8_t*>(dst.data);
    ParallelRanges(outer * n, GrainFor(rowBytes), [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; item++) {
        const int64_t o = item / n, k = item % n;
        const uint8_t* from = src + ((o * axisDim + resolved[static_cast<size_t>(k)]) * inner) * es;
        uint8_t* to = out + item * rowBytes;
        if (inner == 1) CopyElement(from, to, es);
        else std::memcpy(to, from, static_cast<size_t>(rowBytes));
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
