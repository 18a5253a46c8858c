#include "elements_index_function.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "strided_copy.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;

// Both ops walk indices as rows of their last axis. A row's data offset leaves out the axis term (the
// index supplies it, times axisStride); across a row, column j adds j unless the axis is the last one.
struct IndexRows {
  int rank = 0, axis = 0;
  int64_t dims[kMaxViewRank];  // indices' dims
  int64_t dataStride[kMaxViewRank];
  int64_t width = 0, count = 0, axisDim = 0, axisStride = 0;
  bool alongRow = false;

  int64_t BaseOf(int64_t row) const {
    int64_t base = 0;
    for (int k = rank - 2; k >= 0; k--) {
      const int64_t c = row % dims[k];
      row /= dims[k];
      if (k != axis) base += c * dataStride[k];
    }
    return base;
  }
};

// Consecutive rows' base offsets, without a division per row.
class RowWalker {
 public:
  RowWalker(const IndexRows& r, int64_t row) : r_(r) {
    for (int k = r.rank - 2; k >= 0; k--) {
      coord_[k] = row % r.dims[k];
      row /= r.dims[k];
      if (k != r.axis) base_ += coord_[k] * r.dataStride[k];
    }
  }
  int64_t base() const { return base_; }
  void Next() {
    for (int k = r_.rank - 2; k >= 0; k--) {
      if (k != r_.axis) base_ += r_.dataStride[k];
      if (++coord_[k] < r_.dims[k]) return;
      if (k != r_.axis) base_ -= r_.dataStride[k] * r_.dims[k];
      coord_[k] = 0;
    }
  }

 private:
  const IndexRows& r_;
  int64_t coord_[kMaxViewRank] = {};
  int64_t base_ = 0;
};

// Reads and checks data's dims, indices' dims and the axis (shared by both functions).
IndexRows ReadIndexRows(const Napi::CallbackInfo& info, const ElementsView& data, size_t dataDimsAt, const ElementsView& indices, size_t indexDimsAt,
                        size_t axisAt, const char* ctx) {
  Napi::Env env = info.Env();
  const std::vector<int64_t> dataDims = ExpectIntegerList(info, dataDimsAt, kMaxViewRank, 0, kMaxSafe, ctx, "dataDims");
  const std::vector<int64_t> indexDims = ExpectIntegerList(info, indexDimsAt, kMaxViewRank, 0, kMaxSafe, ctx, "indicesDims");
  IndexRows r;
  r.rank = static_cast<int>(dataDims.size());
  r.axis = static_cast<int>(ExpectInteger(info, axisAt, 0, r.rank > 0 ? r.rank - 1 : 0, ctx, "axis"));
  if (r.rank == 0) ThrowArgument(env, ctx, "data must have rank ≥ 1");
  if (static_cast<int>(indexDims.size()) != r.rank) ThrowArgument(env, ctx, "indices must have data's rank");
  for (int k = 0; k < r.rank; k++) {
    if (k != r.axis && indexDims[k] > dataDims[k]) ThrowArgument(env, ctx, "indicesDims[" + std::to_string(k) + "] exceeds dataDims");
  }
  if (CheckedProduct(env, dataDims, ctx, "dataDims") != data.length) ThrowArgument(env, ctx, "data must have Π dataDims elements");
  r.count = CheckedProduct(env, indexDims, ctx, "indicesDims");
  if (r.count != indices.length) ThrowArgument(env, ctx, "indices must have Π indicesDims elements");
  int64_t stride = 1;
  for (int k = r.rank - 1; k >= 0; k--) {
    r.dims[k] = indexDims[k];
    r.dataStride[k] = stride;
    stride *= dataDims[k];
  }
  r.width = indexDims[r.rank - 1];
  r.axisDim = dataDims[r.axis];
  r.axisStride = r.dataStride[r.axis];
  r.alongRow = r.axis == r.rank - 1;
  return r;
}

// An index resolved into [0, dim) (negatives count from the end); false when out of range.
template <typename I>
inline bool Resolve(I raw, int64_t dim, int64_t* out) {
  int64_t v = static_cast<int64_t>(raw);
  v += v < 0 ? dim : 0;
  *out = v;
  return static_cast<uint64_t>(v) < static_cast<uint64_t>(dim);
}

// The coded error for the first out-of-range index in row-major order (after a pass found one).
[[noreturn]] void ThrowFirstBad(Napi::Env env, const ElementsView& indices, int64_t dim, const char* ctx) {
  const bool wide = indices.type == napi_bigint64_array;
  int64_t bad = 0;
  for (int64_t k = 0; k < indices.length; k++) {
    const int64_t v = wide ? static_cast<const int64_t*>(indices.data)[k] : static_cast<const int32_t*>(indices.data)[k];
    int64_t resolved;
    if (!Resolve(v, dim, &resolved)) {
      bad = v;
      break;
    }
  }
  ThrowJs(env, "INVALID_ARGUMENT", std::string(ctx) + ": index " + std::to_string(bad) + " is out of bounds for a dimension of size " + std::to_string(dim));
}

// Element types by size (a copy moves bits) and index types: fn(T{}, I{}).
template <typename Fn>
void WithSizeAndIndex(int elementSize, napi_typedarray_type indexType, Fn&& fn) {
  auto withIndex = [&](auto t) {
    if (indexType == napi_bigint64_array) fn(t, int64_t{});
    else fn(t, int32_t{});
  };
  switch (elementSize) {
    case 1: return withIndex(uint8_t{});
    case 2: return withIndex(uint16_t{});
    case 4: return withIndex(uint32_t{});
    default: return withIndex(uint64_t{});
  }
}

template <typename T, typename I>
bool GatherRows(const T* src, const I* idx, T* dst, const IndexRows& r, int64_t begin, int64_t end) {
  bool ok = true;
  RowWalker at(r, begin);
  for (int64_t row = begin; row < end; row++, at.Next()) {
    const T* from = src + at.base();
    const I* ix = idx + row * r.width;
    T* to = dst + row * r.width;
    // An out-of-range index reads element 0 and is reported after the pass.
    if (r.alongRow) {
      for (int64_t j = 0; j < r.width; j++) {
        int64_t v;
        if (!Resolve(ix[j], r.axisDim, &v)) ok = false, v = 0;
        to[j] = from[v];
      }
    } else {
      for (int64_t j = 0; j < r.width; j++) {
        int64_t v;
        if (!Resolve(ix[j], r.axisDim, &v)) ok = false, v = 0;
        to[j] = from[j + v * r.axisStride];
      }
    }
  }
  return ok;
}

// How an update meets the value already there. Floats in double, rounded once; integers wrap.
template <typename T>
using Wide = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
struct Assign {
  template <typename T> T operator()(T, T b) const { return b; }
};
struct Add {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(static_cast<double>(a) + static_cast<double>(b));
    else return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
  }
};
struct Mul {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(static_cast<double>(a) * static_cast<double>(b));
    else return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
  }
};
// The TS kernel's comparisons as written (a NaN update replaces, a NaN in place is kept only by equality).
struct Max {
  template <typename T> T operator()(T a, T b) const { return a >= b ? a : b; }
};
struct Min {
  template <typename T> T operator()(T a, T b) const { return a <= b ? a : b; }
};

template <typename T, typename I, typename Combine>
bool ScatterRow(T* at, const I* ix, const T* upd, const IndexRows& r, int64_t j0, int64_t j1, Combine combine) {
  bool ok = true;
  for (int64_t j = j0; j < j1; j++) {
    int64_t v;
    if (!Resolve(ix[j], r.axisDim, &v)) {
      ok = false;
      continue;
    }
    T& d = at[(r.alongRow ? 0 : j) + v * r.axisStride];
    d = combine(d, upd[j]);
  }
  return ok;
}

// Writes that can meet at one position must stay in indices' row-major order: they differ only in the
// axis coordinate. So a task is one combination of the other coordinates, walking the axis in order: a
// row when the axis is the last one, else the rows (pre, 0 … A-1, q) with A = dims[axis], over a chunk of
// their columns (chunks only when there are fewer combinations than threads: scattering along axis 0).
template <typename T, typename I, typename Combine>
bool ScatterAll(T* dst, const I* idx, const T* upd, const IndexRows& r, Combine combine) {
  std::atomic<bool> ok{true};
  const int64_t rows = r.count / r.width;
  const int64_t elementBytes = sizeof(T) * 2 + sizeof(I);
  if (r.alongRow) {
    ParallelRanges(rows, GrainFor(r.width * elementBytes), [&](int64_t begin, int64_t end) {
      RowWalker at(r, begin);
      bool mine = true;
      for (int64_t row = begin; row < end; row++, at.Next()) mine &= ScatterRow(dst + at.base(), idx + row * r.width, upd + row * r.width, r, 0, r.width, combine);
      if (!mine) ok.store(false, std::memory_order_relaxed);
    });
    return ok.load();
  }
  const int64_t a = r.dims[r.axis];
  int64_t q = 1;
  for (int k = r.axis + 1; k < r.rank - 1; k++) q *= r.dims[k];
  const int64_t lines = rows / a, team = omp_get_max_threads();
  const int64_t chunks = lines >= team ? 1 : std::min((r.width + 63) / 64, (2 * team + lines - 1) / lines);
  const int64_t chunk = (r.width + chunks - 1) / chunks;
  ParallelRanges(lines * chunks, GrainFor(a * chunk * elementBytes), [&](int64_t begin, int64_t end) {
    bool mine = true;
    for (int64_t item = begin; item < end; item++) {
      const int64_t line = item / chunks, j0 = (item % chunks) * chunk, j1 = std::min(r.width, j0 + chunk);
      const int64_t row0 = (line / q) * a * q + line % q;
      T* at = dst + r.BaseOf(row0);
      for (int64_t k = 0; k < a; k++) {
        const int64_t row = row0 + k * q;
        mine &= ScatterRow(at, idx + row * r.width, upd + row * r.width, r, j0, j1, combine);
      }
    }
    if (!mine) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load();
}

// Element types as the typed array declares them, for the reductions: fn(T{}).
template <typename Fn>
bool WithElementType(napi_typedarray_type type, Fn&& fn) {
  switch (type) {
    case napi_float32_array: return fn(float{});
    case napi_float64_array: return fn(double{});
    case napi_int8_array: return fn(int8_t{});
    case napi_uint8_array: return fn(uint8_t{});
    case napi_int16_array: return fn(int16_t{});
    case napi_uint16_array: return fn(uint16_t{});
    case napi_int32_array: return fn(int32_t{});
    case napi_uint32_array: return fn(uint32_t{});
    case napi_bigint64_array: return fn(int64_t{});
    case napi_biguint64_array: return fn(uint64_t{});
    default: return fn(nullptr);
  }
}

}  // namespace

Napi::Value GatherElementsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "gatherElements";
  const ElementsView data = ExpectElements(info, 0, -1, ctx, "data");
  const ElementsView indices = ExpectIndices(info, 2, ctx);
  const IndexRows r = ReadIndexRows(info, data, 1, indices, 3, 4, ctx);
  const ElementsView dst = ExpectElementsLike(info, 5, data, r.count, ctx, "dst");
  const int threads = ReadThreadCount(info, 6, ctx);
  if (r.count == 0) return env.Undefined();
  std::atomic<bool> ok{true};
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    WithSizeAndIndex(data.elementSize, indices.type, [&](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      const int64_t rows = r.count / r.width;
      ParallelRanges(rows, GrainFor(r.width * (sizeof(T) * 2 + sizeof(I))), [&](int64_t begin, int64_t end) {
        if (!GatherRows(static_cast<const T*>(data.data), static_cast<const I*>(indices.data), static_cast<T*>(dst.data), r, begin, end)) {
          ok.store(false, std::memory_order_relaxed);
        }
      });
    });
  });
  if (!ok.load()) ThrowFirstBad(env, indices, r.axisDim, ctx);
  return env.Undefined();
}

Napi::Value ScatterElementsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "scatterElements";
  const ElementsView data = ExpectElements(info, 0, -1, ctx, "data");
  const ElementsView indices = ExpectIndices(info, 2, ctx);
  const IndexRows r = ReadIndexRows(info, data, 1, indices, 3, 5, ctx);
  const ElementsView updates = ExpectElementsLike(info, 4, data, r.count, ctx, "updates");
  const std::string reduction = ExpectName(info, 6, ctx, "reduction");
  const ElementsView dst = ExpectElementsLike(info, 7, data, data.length, ctx, "dst");
  const int threads = ReadThreadCount(info, 8, ctx);
  const int op = reduction == "none" ? 0 : reduction == "add" ? 1 : reduction == "mul" ? 2 : reduction == "max" ? 3 : reduction == "min" ? 4 : -1;
  if (op < 0) ThrowArgument(env, ctx, "reduction must be 'none', 'add', 'mul', 'max' or 'min'");
  const bool typed = WithElementType(data.type, [](auto t) { return !std::is_null_pointer_v<decltype(t)>; });
  if (op > 0 && !typed) ThrowArgument(env, ctx, "reductions take numeric typed arrays");
  bool ok = true;
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    if (dst.data != data.data) CopyBytes(data.data, dst.data, data.length * data.elementSize);
    if (r.count == 0) return;
    auto run = [&](auto t, auto i, auto combine) {
      using T = decltype(t);
      using I = decltype(i);
      ok = ScatterAll(static_cast<T*>(dst.data), static_cast<const I*>(indices.data), static_cast<const T*>(updates.data), r, combine);
    };
    if (op == 0) {
      WithSizeAndIndex(data.elementSize, indices.type, [&](auto t, auto i) { run(t, i, Assign{}); });
      return;
    }
    WithElementType(data.type, [&](auto t) {
      if constexpr (!std::is_null_pointer_v<decltype(t)>) {
        auto withIndex = [&](auto combine) {
          if (indices.type == napi_bigint64_array) run(t, int64_t{}, combine);
          else run(t, int32_t{}, combine);
        };
        if (op == 1) withIndex(Add{});
        else if (op == 2) withIndex(Mul{});
        else if (op == 3) withIndex(Max{});
        else withIndex(Min{});
      }
      return true;
    });
  });
  if (!ok) ThrowFirstBad(env, indices, r.axisDim, ctx);
  return env.Undefined();
}

}  // namespace switchyard
