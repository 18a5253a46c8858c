#include "normalize_function.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

using vec::ReduceOp;

constexpr int64_t kMaxSafe = 9007199254740991LL;
constexpr int64_t kColumnBlock = 512;

double ReadEpsilon(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  const double e = info[index].IsNumber() ? info[index].As<Napi::Number>().DoubleValue() : NAN;
  if (!(e >= 0)) ThrowArgument(info.Env(), ctx, "epsilon must be a number >= 0");
  return e;
}

void CheckMatrix(Napi::Env env, const ElementsView& x, int64_t rows, int64_t cols, const char* ctx) {
  if (static_cast<double>(rows) * static_cast<double>(cols) != static_cast<double>(x.length)) ThrowArgument(env, ctx, "x must have rows × cols elements");
}

}  // namespace

Napi::Value NormalizeGroupsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "normalizeGroups";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t rows = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "rows");
  const int64_t cols = ExpectInteger(info, 3, 1, kMaxSafe, ctx, "cols");
  CheckMatrix(env, x, rows, cols, ctx);
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  const double epsilon = ReadEpsilon(info, 4, ctx);
  const ElementsView scale = OptionalFloats(info, 5, -1, ctx, "scale");
  const ElementsView bias = OptionalFloats(info, 6, -1, ctx, "bias");
  const int64_t rowPeriod = ExpectInteger(info, 7, 1, kMaxSafe, ctx, "rowPeriod");
  const int64_t colBlock = ExpectInteger(info, 8, 1, cols, ctx, "colBlock");
  const ElementsView meanOut = OptionalFloats(info, 9, rows, ctx, "mean");
  const ElementsView invOut = OptionalFloats(info, 10, rows, ctx, "invStdDev");
  const int threads = ReadThreadCount(info, 11, ctx);
  if (cols % colBlock != 0) ThrowArgument(env, ctx, "colBlock must divide cols");
  // Scale and bias have rowPeriod · G entries, G dividing the cols / colBlock blocks of a row.
  int64_t groups = 0;
  for (const ElementsView* p : {&scale, &bias}) {
    if (!p->data) continue;
    if (p->length % rowPeriod != 0) ThrowArgument(env, ctx, "scale and bias lengths must be multiples of rowPeriod");
    const int64_t g = p->length / rowPeriod;
    if (g == 0 || (cols / colBlock) % g != 0 || (groups && g != groups)) ThrowArgument(env, ctx, "scale / bias do not tile the row's blocks");
    groups = g;
  }
  if (x.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    const auto* s = static_cast<const float*>(scale.data);
    const auto* b = static_cast<const float*>(bias.data);
    ParallelRanges(rows, GrainFor(cols * 8), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; r++) {
        const float* xr = in + r * cols;
        float* yr = out + r * cols;
        double mean, variance;
        loops.moments(xr, cols, &mean, &variance);
        const double inv = 1.0 / std::sqrt(variance + epsilon);
        if (meanOut.data) static_cast<float*>(meanOut.data)[r] = static_cast<float>(mean);
        if (invOut.data) static_cast<float*>(invOut.data)[r] = static_cast<float>(inv);
        const int64_t paramBase = groups ? (r % rowPeriod) * groups : 0;
        if (colBlock == 1 && s) {
          // Per-column parameters (LayerNormalization): the G of them repeat along the row.
          for (int64_t j = 0; j < cols; j += groups) {
            loops.normalizeScaled(xr + j, yr + j, groups, static_cast<float>(mean), static_cast<float>(inv), s + paramBase, b ? b + paramBase : nullptr);
          }
          continue;
        }
        // One scale/bias per block of colBlock columns: y = x · a + c, as the TS kernels fold it.
        for (int64_t q = 0, blocks = cols / colBlock; q < blocks; q++) {
          const int64_t p = groups ? paramBase + q % groups : 0;
          const double a = (s ? s[p] : 1.0) * inv;
          const double c = (b ? b[p] : 0.0) - mean * a;
          loops.affine(xr + q * colBlock, yr + q * colBlock, colBlock, static_cast<float>(a), static_cast<float>(c));
        }
      }
    });
  });
  return env.Undefined();
}

Napi::Value BatchNormJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "batchNorm";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t n = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "n");
  const int64_t c = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "c");
  const int64_t spatial = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "spatial");
  if (static_cast<double>(n) * static_cast<double>(c) * static_cast<double>(spatial) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have n × c × spatial elements");
  }
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  const ElementsView scale = ExpectFloats(info, 5, c, ctx, "scale");
  const ElementsView bias = ExpectFloats(info, 6, c, ctx, "bias");
  const ElementsView mean = ExpectFloats(info, 7, c, ctx, "mean");
  const ElementsView var = ExpectFloats(info, 8, c, ctx, "var");
  const double epsilon = ReadEpsilon(info, 9, ctx);
  const int threads = ReadThreadCount(info, 10, ctx);
  if (x.length == 0) return env.Undefined();
  // Per channel, y = x · a + b (the TS kernel's folding, in double).
  std::vector<float> a(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; k++) {
    const double ak = static_cast<const float*>(scale.data)[k] / std::sqrt(static_cast<const float*>(var.data)[k] + epsilon);
    a[k] = static_cast<float>(ak);
    b[k] = static_cast<float>(static_cast<const float*>(bias.data)[k] - static_cast<const float*>(mean.data)[k] * ak);
  }
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    if (spatial == 1) {
      ParallelRanges(n, GrainFor(c * 8), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; i++) {
          for (int64_t k = 0; k < c; k++) out[i * c + k] = in[i * c + k] * a[k] + b[k];
        }
      });
      return;
    }
    ParallelRanges(n * c, GrainFor(spatial * 8), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; r++) loops.affine(in + r * spatial, out + r * spatial, spatial, a[r % c], b[r % c]);
    });
  });
  return env.Undefined();
}

Napi::Value LpNormalizeJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "lpNormalize";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t outer = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "outer");
  const int64_t len = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "len");
  const int64_t inner = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "inner");
  const int64_t p = ExpectInteger(info, 5, 1, 2, ctx, "p");
  const int threads = ReadThreadCount(info, 6, ctx);
  if (static_cast<double>(outer) * static_cast<double>(len) * static_cast<double>(inner) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have outer × len × inner elements");
  }
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  if (x.length == 0) return env.Undefined();
  const ReduceOp op = p == 1 ? ReduceOp::kSumAbs : ReduceOp::kSumSquare;
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    if (inner == 1) {
      ParallelRanges(outer, GrainFor(len * 8), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; o++) {
          const double acc = loops.reduceRow(op, in + o * len, len, 0.0, 0.0f);
          const double norm = p == 2 ? std::sqrt(acc) : acc;
          // An all-zero slice stays zero (x / 0 would be NaN).
          loops.affine(in + o * len, out + o * len, len, norm == 0 ? 0.0f : static_cast<float>(1.0 / norm), 0.0f);
        }
      });
      return;
    }
    const int64_t block = std::min(inner, kColumnBlock), blocks = (inner + block - 1) / block;
    const int team = omp_get_max_threads();
    std::vector<double> accScratch(static_cast<size_t>(team * block));
    std::vector<float> factorScratch(static_cast<size_t>(team * block));
    ParallelRanges(outer * blocks, GrainFor(len * block * 8), [&](int64_t begin, int64_t end) {
      double* acc = accScratch.data() + omp_get_thread_num() * block;
      float* factor = factorScratch.data() + omp_get_thread_num() * block;
      for (int64_t item = begin; item < end; item++) {
        const int64_t o = item / blocks, j0 = (item % blocks) * block, w = std::min(block, inner - j0);
        const float* base = in + o * len * inner + j0;
        std::fill(acc, acc + w, 0.0);
        for (int64_t k = 0; k < len; k++) loops.reduceColumns(op, base + k * inner, w, acc, nullptr);
        for (int64_t j = 0; j < w; j++) {
          const double norm = p == 2 ? std::sqrt(acc[j]) : acc[j];
          factor[j] = norm == 0 ? 0.0f : static_cast<float>(1.0 / norm);
        }
        for (int64_t k = 0; k < len; k++) loops.scaleColumns(base + k * inner, out + o * len * inner + j0 + k * inner, w, factor);
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
