#include "pad_function.h"

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

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// The input index output index `o` reads on an axis of input size `d` with `before` padding; -1 for
// the constant.
int64_t SourceIndex(int64_t o, int64_t before, int64_t d, PadMode mode) {
  int64_t i = o - before;
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return i < 0 ? 0 : d - 1;
    case PadMode::kWrap: return ((i % d) + d) % d;
    case PadMode::kReflect: {
      if (d == 1) return 0;
      const int64_t period = 2 * (d - 1);
      i = ((i % period) + period) % period;
      return i < d ? i : period - i;
    }
  }
  return -1;
}

void Fill(uint8_t* dst, const uint8_t* value, int64_t n, int es) {
  if (n <= 0) return;
  std::memcpy(dst, value, static_cast<size_t>(es));
  // Doubling: each copy duplicates what is there.
  for (int64_t filled = 1; filled < n;) {
    const int64_t m = std::min(filled, n - filled);
    std::memcpy(dst + filled * es, dst, static_cast<size_t>(m * es));
    filled += m;
  }
}

PadMode ReadMode(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  const std::string m = ExpectName(info, index, ctx, "mode");
  if (m == "constant") return PadMode::kConstant;
  if (m == "reflect") return PadMode::kReflect;
  if (m == "edge") return PadMode::kEdge;
  if (m == "wrap") return PadMode::kWrap;
  ThrowArgument(info.Env(), ctx, "mode must be 'constant', 'reflect', 'edge' or 'wrap', got '" + m + "'");
}

}  // namespace

Napi::Value PadJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "pad";
  const ElementsView x = ExpectElements(info, 0, -1, ctx, "x");
  const std::vector<int64_t> xDims = ExpectIntegerList(info, 1, kMaxViewRank, 0, kMaxSafe, ctx, "xDims");
  const int rank = static_cast<int>(xDims.size());
  const std::vector<int64_t> pads = ExpectIntegerList(info, 3, 2 * kMaxViewRank, -kMaxSafe, kMaxSafe, ctx, "pads");
  const PadMode mode = ReadMode(info, 4, ctx);
  const int threads = ReadThreadCount(info, 6, ctx);
  if (static_cast<int>(pads.size()) != 2 * rank) ThrowArgument(env, ctx, "pads must have 2 × rank entries");
  if (CheckedProduct(env, xDims, ctx, "xDims") != x.length) ThrowArgument(env, ctx, "x must have Π xDims elements");
  std::vector<int64_t> outDims(static_cast<size_t>(rank));
  for (int k = 0; k < rank; k++) {
    outDims[k] = xDims[k] + pads[k] + pads[k + rank];
    if (outDims[k] < 0) ThrowArgument(env, ctx, "pads crop axis " + std::to_string(k) + " below zero");
    if (mode != PadMode::kConstant && xDims[k] == 0 && outDims[k] > 0) ThrowArgument(env, ctx, "only constant mode can pad the empty axis " + std::to_string(k));
  }
  const int64_t total = CheckedProduct(env, outDims, ctx, "output dims");
  const ElementsView y = ExpectElementsLike(info, 2, x, total, ctx, "y");
  const int es = x.elementSize;
  uint8_t value[8] = {};
  if (!(info[5].IsNull() || info[5].IsUndefined())) {
    const ElementsView v = ExpectElementsLike(info, 5, x, 1, ctx, "value");
    std::memcpy(value, v.data, static_cast<size_t>(es));
  }
  if (total == 0) return env.Undefined();
  if (rank == 0) {
    std::memcpy(y.data, x.data, static_cast<size_t>(es));
    return env.Undefined();
  }
  // Per axis, the source index of each output index (-1: the constant), so a row's source is a sum.
  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
  for (int k = 0; k < rank; k++) {
    maps[k].resize(static_cast<size_t>(outDims[k]));
    for (int64_t o = 0; o < outDims[k]; o++) maps[k][o] = SourceIndex(o, pads[k], xDims[k], mode);
  }
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    int64_t xs[kMaxViewRank];
    int64_t stride = 1;
    for (int k = rank - 1; k >= 0; k--) {
      xs[k] = stride;
      stride *= xDims[k];
    }
    const int last = rank - 1;
    const int64_t width = outDims[last], d = xDims[last], before = pads[last];
    // Output columns [lo, hi) copy one contiguous input span; the rest go through the last axis' map.
    const int64_t lo = std::min(std::max<int64_t>(0, before), width), hi = std::max(lo, std::min(width, before + d));
    const int64_t rows = total / width;
    const auto* src = static_cast<const uint8_t*>(x.data);
    auto* out = static_cast<uint8_t*>(y.data);
    const std::vector<int64_t>& lastMap = maps[last];
    ParallelRanges(rows, GrainFor(width * es), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; row++) {
        int64_t base = 0;
        bool constant = false;
        for (int64_t r = row, k = last - 1; k >= 0; k--) {
          const int64_t i = maps[k][r % outDims[k]];
          r /= outDims[k];
          if (i < 0) constant = true;
          base += i * xs[k];
        }
        uint8_t* to = out + row * width * es;
        if (constant) {
          Fill(to, value, width, es);
          continue;
        }
        const uint8_t* from = src + base * es;
        for (int64_t j = 0; j < lo; j++) std::memcpy(to + j * es, lastMap[j] < 0 ? value : from + lastMap[j] * es, static_cast<size_t>(es));
        if (hi > lo) std::memcpy(to + lo * es, from + (lo - before) * es, static_cast<size_t>((hi - lo) * es));
        for (int64_t j = hi; j < width; j++) std::memcpy(to + j * es, lastMap[j] < 0 ? value : from + lastMap[j] * es, static_cast<size_t>(es));
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
