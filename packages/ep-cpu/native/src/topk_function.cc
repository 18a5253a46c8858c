#include "topk_function.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;

// Whether lane element a ranks before b: by value (NaN after every number, so first when largest),
// then by the lower index.
struct Better {
  const float* v;
  bool largest;
  bool operator()(int32_t a, int32_t b) const {
    const float x = v[a], y = v[b];
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) {
      if (xn && yn) return a < b;
      return largest ? xn : yn;
    }
    if (x != y) return largest ? x > y : x < y;
    return a < b;
  }
};

// One lane (`n` values `stride` apart) into its k best, written `stride` apart.
void TopKLane(const float* x, int64_t n, int64_t stride, int64_t k, bool largest, float* values, int64_t* indices, std::vector<float>& lane,
              std::vector<int32_t>& order) {
  lane.resize(static_cast<size_t>(n));
  order.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    lane[i] = x[i * stride];
    order[i] = static_cast<int32_t>(i);
  }
  const Better better{lane.data(), largest};
  if (k < n) {
    std::nth_element(order.begin(), order.begin() + k, order.end(), better);
    std::sort(order.begin(), order.begin() + k, better);
  } else {
    std::sort(order.begin(), order.end(), better);
  }
  for (int64_t t = 0; t < k; ++t) {
    values[t * stride] = lane[order[t]];
    indices[t * stride] = order[t];
  }
}

}  // namespace

Napi::Value TopKJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "topK";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t outer = ExpectInteger(info, 1, 0, kMaxSafe, ctx, "outer");
  const int64_t len = ExpectInteger(info, 2, 0, INT32_MAX, ctx, "len");
  const int64_t inner = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "inner");
  const int64_t k = ExpectInteger(info, 4, 0, len, ctx, "k");
  if (!info[5].IsBoolean()) ThrowArgument(env, ctx, "largest must be a boolean");
  const bool largest = info[5].As<Napi::Boolean>().Value();
  if (static_cast<double>(outer) * static_cast<double>(len) * static_cast<double>(inner) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have outer × len × inner elements");
  }
  const int64_t outCount = outer * k * inner;
  const ElementsView values = ExpectFloats(info, 6, outCount, ctx, "values");
  const ElementsView indices = ExpectElements(info, 7, outCount, ctx, "indices");
  if (indices.type != napi_bigint64_array) ThrowArgument(env, ctx, "indices must be a BigInt64Array");
  const int threads = ReadThreadCount(info, 8, ctx);
  if (outCount == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const auto* in = static_cast<const float*>(x.data);
    auto* vals = static_cast<float*>(values.data);
    auto* idx = static_cast<int64_t*>(indices.data);
    // Lanes are independent: split them across the team, each thread with its own scratch.
    ParallelRanges(outer * inner, GrainFor(len * 16), [&](int64_t begin, int64_t end) {
      thread_local std::vector<float> lane;
      thread_local std::vector<int32_t> order;
      for (int64_t item = begin; item < end; ++item) {
        const int64_t o = item / inner, j = item % inner;
        TopKLane(in + o * len * inner + j, len, inner, k, largest, vals + o * k * inner + j, idx + o * k * inner + j, lane, order);
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
