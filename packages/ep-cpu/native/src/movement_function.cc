#include "movement_function.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "strided_copy.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;
// Concat/Split take one run per input; a graph with more than this is not a real model.
constexpr size_t kMaxParts = 1 << 16;

struct Segment {
  uint8_t* bytes;  // the part's tensor
  int64_t run;     // bytes per row
};

// Rows of `joined` are the parts' rows one after another. Copies joined → parts (split) or parts →
// joined (concat), split over the team by ranges of joined's bytes.
void CopySegments(uint8_t* joined, const std::vector<Segment>& parts, int64_t rows, bool intoJoined) {
  int64_t rowBytes = 0;
  for (const Segment& s : parts) rowBytes += s.run;
  if (rowBytes == 0) return;
  ParallelRanges(rows * rowBytes, kParallelBytes, [&](int64_t begin, int64_t end) {
    int64_t row = begin / rowBytes, within = begin % rowBytes;
    size_t part = 0;
    while (within >= parts[part].run) within -= parts[part++].run;
    for (int64_t p = begin; p < end;) {
      const Segment& s = parts[part];
      const int64_t n = std::min(s.run - within, end - p);
      uint8_t* a = joined + p;
      uint8_t* b = s.bytes + row * s.run + within;
      if (n > 0) std::memcpy(intoJoined ? a : b, intoJoined ? b : a, static_cast<size_t>(n));
      p += n;
      within = 0;
      if (++part == parts.size()) {
        part = 0;
        row++;
      }
    }
  });
}

// Concat (intoJoined) and Split share their argument shapes: (joined-side tensor, part tensors, outer, runs).
Napi::Value JoinOrSplit(const Napi::CallbackInfo& info, bool concat) {
  Napi::Env env = info.Env();
  const char* ctx = concat ? "concat" : "split";
  const size_t joinedIndex = concat ? 1 : 0, partsIndex = concat ? 0 : 1;
  const ElementsView joined = ExpectElements(info, joinedIndex, -1, ctx, concat ? "dst" : "src");
  const std::vector<ElementsView> views = ExpectElementsList(info, partsIndex, joined, kMaxParts, ctx, concat ? "srcs" : "dsts");
  const int64_t outer = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "outer");
  const std::vector<int64_t> runs = ExpectIntegerList(info, 3, kMaxParts, 0, kMaxSafe, ctx, "runs");
  const int threads = ReadThreadCount(info, 4, ctx);
  if (runs.size() != views.size()) ThrowArgument(env, ctx, "runs must have one entry per part");
  const int es = joined.elementSize;
  std::vector<Segment> parts(views.size());
  double total = 0;
  for (size_t i = 0; i < views.size(); i++) {
    if (static_cast<double>(views[i].length) != static_cast<double>(outer) * static_cast<double>(runs[i])) {
      ThrowArgument(env, ctx, "part " + std::to_string(i) + " has " + std::to_string(views[i].length) + " elements, expected outer × runs[" +
                                  std::to_string(i) + "] = " + std::to_string(static_cast<double>(outer) * static_cast<double>(runs[i])));
    }
    parts[i] = Segment{static_cast<uint8_t*>(views[i].data), runs[i] * es};
    total += static_cast<double>(views[i].length);
  }
  if (static_cast<double>(joined.length) != total) {
    ThrowArgument(env, ctx, std::string(concat ? "dst" : "src") + " has " + std::to_string(joined.length) + " elements, the parts " + std::to_string(total));
  }
  if (parts.empty() || total == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    CopySegments(static_cast<uint8_t*>(joined.data), parts, outer, concat);
  });
  return env.Undefined();
}

}  // namespace

Napi::Value CopyStridedJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "copyStrided";
  const ElementsView src = ExpectElements(info, 0, -1, ctx, "src");
  const int64_t offset = ExpectInteger(info, 1, 0, kMaxSafe, ctx, "offset");
  const std::vector<int64_t> strides = ExpectIntegerList(info, 2, kMaxViewRank, -kMaxSafe, kMaxSafe, ctx, "strides");
  const std::vector<int64_t> dims = ExpectIntegerList(info, 3, kMaxViewRank, 0, kMaxSafe, ctx, "dims");
  if (strides.size() != dims.size()) ThrowArgument(env, ctx, "strides and dims must have the same length");
  const int64_t total = CheckedProduct(env, dims, ctx, "dims");
  const ElementsView dst = ExpectElementsLike(info, 4, src, total, ctx, "dst");
  const int threads = ReadThreadCount(info, 5, ctx);
  if (total == 0) return env.Undefined();
  // The lowest and highest element the view reads, exactly (128-bit: strides · dims may pass 2^63).
  __int128 lo = offset, hi = offset;
  for (size_t i = 0; i < dims.size(); i++) {
    const __int128 reach = static_cast<__int128>(strides[i]) * (dims[i] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  if (lo < 0 || hi >= src.length) ThrowArgument(env, ctx, "the view reaches outside src (" + std::to_string(src.length) + " elements)");
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    CopyStrided(src.data, offset, strides.data(), dims.data(), static_cast<int>(dims.size()), dst.data, src.elementSize);
  });
  return env.Undefined();
}

Napi::Value ConcatJs(const Napi::CallbackInfo& info) { return JoinOrSplit(info, true); }

Napi::Value SplitJs(const Napi::CallbackInfo& info) { return JoinOrSplit(info, false); }

Napi::Value TriluJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "trilu";
  const ElementsView x = ExpectElements(info, 0, -1, ctx, "x");
  const ElementsView y = ExpectElementsLike(info, 1, x, x.length, ctx, "y");
  const int64_t rows = ExpectInteger(info, 2, 0, kMaxSafe, ctx, "rows");
  const int64_t cols = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "cols");
  const int64_t k = ExpectInteger(info, 4, -kMaxSafe, kMaxSafe, ctx, "k");
  if (!info[5].IsBoolean()) ThrowArgument(env, ctx, "upper must be a boolean");
  const bool upper = info[5].As<Napi::Boolean>().Value();
  const int threads = ReadThreadCount(info, 6, ctx);
  const double matrix = static_cast<double>(rows) * static_cast<double>(cols);
  if (matrix == 0 ? x.length != 0 : std::fmod(static_cast<double>(x.length), matrix) != 0) ThrowArgument(env, ctx, "x must hold whole rows × cols matrices");
  if (x.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const int64_t es = x.elementSize, rowBytes = cols * es;
    const auto* src = static_cast<const uint8_t*>(x.data);
    auto* dst = static_cast<uint8_t*>(y.data);
    ParallelRanges(x.length / cols, GrainFor(rowBytes * 2), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; r++) {
        // Kept columns: upper → j ≥ i + k; lower → j < i + k + 1.
        const int64_t i = r % rows, edge = std::clamp<int64_t>(upper ? i + k : i + k + 1, 0, cols);
        const int64_t keepFrom = upper ? edge : 0, keepTo = upper ? cols : edge;
        uint8_t* out = dst + r * rowBytes;
        std::memset(out, 0, static_cast<size_t>(keepFrom * es));
        std::memcpy(out + keepFrom * es, src + r * rowBytes + keepFrom * es, static_cast<size_t>((keepTo - keepFrom) * es));
        std::memset(out + keepTo * es, 0, static_cast<size_t>((cols - keepTo) * es));
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
