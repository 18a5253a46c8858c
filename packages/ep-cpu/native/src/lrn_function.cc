#include "lrn_function.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;
// Columns of one task: its window sums (double) and a channel row of x stay in L1.
constexpr int64_t kColumns = 256;

double ReadNumber(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name) {
  if (!info[index].IsNumber()) ThrowArgument(info.Env(), ctx, std::string(name) + " must be a number");
  const double v = info[index].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(v)) ThrowArgument(info.Env(), ctx, std::string(name) + " must be finite");
  return v;
}

}  // namespace

Napi::Value LrnJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "lrn";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t n = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "n");
  const int64_t c = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "c");
  const int64_t spatial = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "spatial");
  if (static_cast<double>(n) * static_cast<double>(c) * static_cast<double>(spatial) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have n × c × spatial elements");
  }
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  const int64_t size = ExpectInteger(info, 5, 1, kMaxSafe, ctx, "size");
  const double alpha = ReadNumber(info, 6, ctx, "alpha");
  const double beta = ReadNumber(info, 7, ctx, "beta");
  const double bias = ReadNumber(info, 8, ctx, "bias");
  const int threads = ReadThreadCount(info, 9, ctx);
  if (x.length == 0) return env.Undefined();
  const int64_t before = (size - 1) / 2, after = size / 2;
  const double k = alpha / static_cast<double>(size);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    const int64_t chunks = (spatial + kColumns - 1) / kColumns;
    const vec::Loops& loops = VectorLoops();
    // Weighted as compute: each element costs a window of multiply-adds and a root or power.
    ParallelRanges(n * chunks, GrainFor(c * std::min(spatial, kColumns) * 64), [&](int64_t begin, int64_t end) {
      double sum[kColumns];
      for (int64_t item = begin; item < end; item++) {
        const int64_t image = item / chunks, j0 = (item % chunks) * kColumns, w = std::min(kColumns, spatial - j0);
        const int64_t at = image * c * spatial + j0;
        loops.lrnChannels(in + at, out + at, c, spatial, w, before, after, k, beta, bias, sum);
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
