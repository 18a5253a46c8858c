#include "softmax_function.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;

vec::SoftmaxKind ReadKind(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  const std::string k = ExpectName(info, index, ctx, "kind");
  if (k == "softmax") return vec::SoftmaxKind::kSoftmax;
  if (k == "logSoftmax") return vec::SoftmaxKind::kLogSoftmax;
  if (k == "hardmax") return vec::SoftmaxKind::kHardmax;
  ThrowArgument(info.Env(), ctx, "kind must be 'softmax', 'logSoftmax' or 'hardmax', got '" + k + "'");
}

// Columns per block along a strided axis: the block's `len` rows (read three times) stay in L2.
int64_t ColumnBlock(int64_t len, int64_t inner) {
  const int64_t fit = std::max<int64_t>(16, (64 * 1024 / std::max<int64_t>(len, 1)) & ~int64_t{15});
  return std::min(inner, fit);
}

}  // namespace

Napi::Value SoftmaxJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "softmax";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t outer = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "outer");
  const int64_t len = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "len");
  const int64_t inner = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "inner");
  const vec::SoftmaxKind kind = ReadKind(info, 5, ctx);
  const int threads = ReadThreadCount(info, 6, ctx);
  if (static_cast<double>(outer) * static_cast<double>(len) * static_cast<double>(inner) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have outer × len × inner elements");
  }
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  if (x.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    if (inner == 1) {
      ParallelRanges(outer, GrainFor(len * 8), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; o++) loops.softmaxRow(kind, in + o * len, out + o * len, len);
      });
      return;
    }
    const int64_t block = ColumnBlock(len, inner), blocks = (inner + block - 1) / block;
    const int team = omp_get_max_threads();
    std::vector<float> maxScratch(static_cast<size_t>(team * block));
    std::vector<double> sumScratch(static_cast<size_t>(team * block));
    ParallelRanges(outer * blocks, GrainFor(len * block * 8), [&](int64_t begin, int64_t end) {
      const int t = omp_get_thread_num();
      for (int64_t item = begin; item < end; item++) {
        const int64_t o = item / blocks, j0 = (item % blocks) * block, w = std::min(block, inner - j0);
        const int64_t at = o * len * inner + j0;
        loops.softmaxColumns(kind, in + at, out + at, len, inner, w, maxScratch.data() + t * block, sumScratch.data() + t * block);
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
