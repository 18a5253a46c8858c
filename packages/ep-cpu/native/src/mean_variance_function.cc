#include "mean_variance_function.h"

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
// Columns of one statistics task when the innermost block is kept: 4 KB of double sums, in L1 beside the input.
constexpr int64_t kColumnChunk = 512;

// x with size-1 axes dropped and neighbouring axes of the same kind (normalized or kept) merged: blocks that
// alternate between the two kinds, the last one contiguous. A group is one combination of the kept axes;
// groupStride numbers the groups row-major over the kept blocks (0 on the normalized ones).
struct Blocks {
  int rank = 0;
  int64_t dims[kMaxViewRank];
  bool normalized[kMaxViewRank];
  int64_t stride[kMaxViewRank];
  int64_t groupStride[kMaxViewRank];
  int64_t groups = 1;
};

Blocks MergeBlocks(const std::vector<int64_t>& dims, const std::vector<bool>& normalized) {
  Blocks b;
  for (size_t i = 0; i < dims.size(); i++) {
    if (dims[i] == 1) continue;
    if (b.rank > 0 && b.normalized[b.rank - 1] == normalized[i]) {
      b.dims[b.rank - 1] *= dims[i];
    } else {
      b.dims[b.rank] = dims[i];
      b.normalized[b.rank] = normalized[i];
      b.rank++;
    }
  }
  // All axes of size 1: one element, its own group.
  if (b.rank == 0) {
    b.dims[0] = 1;
    b.normalized[0] = true;
    b.rank = 1;
  }
  int64_t s = 1;
  for (int i = b.rank - 1; i >= 0; i--) {
    b.stride[i] = s;
    s *= b.dims[i];
    b.groupStride[i] = b.normalized[i] ? 0 : b.groups;
    if (!b.normalized[i]) b.groups *= b.dims[i];
  }
  return b;
}

// Walks the combinations of some blocks in row-major order, keeping the element offset and group index.
class Walker {
 public:
  Walker(const Blocks& b, const int* which, int count) : b_(b), which_(which), count_(count) {}
  void Start(int64_t at) {
    offset_ = group_ = 0;
    for (int k = count_ - 1; k >= 0; k--) {
      const int axis = which_[k];
      index_[k] = at % b_.dims[axis];
      at /= b_.dims[axis];
      offset_ += index_[k] * b_.stride[axis];
      group_ += index_[k] * b_.groupStride[axis];
    }
  }
  void Next() {
    for (int k = count_ - 1; k >= 0; k--) {
      const int axis = which_[k];
      offset_ += b_.stride[axis];
      group_ += b_.groupStride[axis];
      if (++index_[k] < b_.dims[axis]) return;
      offset_ -= b_.stride[axis] * b_.dims[axis];
      group_ -= b_.groupStride[axis] * b_.dims[axis];
      index_[k] = 0;
    }
  }
  int64_t offset() const { return offset_; }
  int64_t group() const { return group_; }

 private:
  const Blocks& b_;
  const int* which_;
  int count_;
  int64_t index_[kMaxViewRank] = {};
  int64_t offset_ = 0, group_ = 0;
};

// Σx and Σx² per group, then each group's y = (x − mean) / denominator. The innermost block is either normalized
// (a row: each contiguous run belongs to one group) or kept (columns: a run spans `width` groups). A
// statistics task is one combination of the outer kept blocks (and a chunk of columns); it walks the outer
// normalized blocks, split into `parts` when there are fewer tasks than threads.
void MeanVariance(const float* x, float* y, const Blocks& b) {
  const vec::Loops& loops = VectorLoops();
  const int last = b.rank - 1;
  const int64_t run = b.dims[last];
  const bool rows = b.normalized[last];
  int kept[kMaxViewRank], normalized[kMaxViewRank], outer[kMaxViewRank];
  int keptCount = 0, normalizedCount = 0;
  int64_t outerKept = 1, outerNormalized = 1;
  for (int k = 0; k < last; k++) {
    outer[k] = k;
    if (b.normalized[k]) {
      normalized[normalizedCount++] = k;
      outerNormalized *= b.dims[k];
    } else {
      kept[keptCount++] = k;
      outerKept *= b.dims[k];
    }
  }
  const int64_t width = rows ? 1 : run;  // groups per combination of the outer kept blocks
  const int64_t chunk = std::min(width, kColumnChunk), chunks = (width + chunk - 1) / chunk;
  const int64_t tasks = outerKept * chunks, team = omp_get_max_threads();
  const int64_t parts = tasks >= team ? 1 : std::min(outerNormalized, (2 * team + tasks - 1) / tasks);
  const int64_t groups = b.groups;
  std::vector<double> sums(static_cast<size_t>(parts * groups)), squares(static_cast<size_t>(parts * groups));
  const int64_t taskBytes = outerNormalized / parts * (rows ? run : chunk) * 4;
  ParallelRanges(tasks * parts, GrainFor(taskBytes), [&](int64_t begin, int64_t end) {
    Walker keptAt(b, kept, keptCount), normalizedAt(b, normalized, normalizedCount);
    for (int64_t item = begin; item < end; item++) {
      const int64_t task = item / parts, part = item % parts;
      const int64_t j0 = (task % chunks) * chunk, w = std::min(chunk, width - j0);
      keptAt.Start(task / chunks);
      const float* base = x + keptAt.offset() + j0;
      const int64_t g0 = keptAt.group() + j0;
      double* sum = sums.data() + part * groups + g0;
      double* square = squares.data() + part * groups + g0;
      const int64_t r0 = outerNormalized * part / parts, r1 = outerNormalized * (part + 1) / parts;
      normalizedAt.Start(r0);
      for (int64_t r = r0; r < r1; r++, normalizedAt.Next()) {
        const float* at = base + normalizedAt.offset();
        if (rows) {
          sum[0] = loops.reduceRow(ReduceOp::kSum, at, run, sum[0], 0.0f);
          square[0] = loops.reduceRow(ReduceOp::kSumSquare, at, run, square[0], 0.0f);
        } else {
          loops.reduceColumns(ReduceOp::kSum, at, w, sum, nullptr);
          loops.reduceColumns(ReduceOp::kSumSquare, at, w, square, nullptr);
        }
      }
    }
  });
  // E[x²] − E[x]² as the ONNX function computes the variance, and y = (x − E[x]) / (σ + 1e-9) in double as
  // the TS kernel does (not x · a + b: with a = 1e9 for a constant group, b's rounding would be the output).
  std::vector<double> mean(static_cast<size_t>(groups)), denominator(static_cast<size_t>(groups));
  const double count = static_cast<double>(b.stride[0] * b.dims[0] / groups);
  ParallelRanges(groups, GrainFor(parts * 16), [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; g++) {
      double sum = sums[g], square = squares[g];
      for (int64_t p = 1; p < parts; p++) {
        sum += sums[p * groups + g];
        square += squares[p * groups + g];
      }
      const double m = sum / count;
      mean[g] = m;
      denominator[g] = std::sqrt(std::max(0.0, square / count - m * m)) + 1e-9;
    }
  });
  const int64_t segments = b.stride[0] * b.dims[0] / run;
  ParallelRanges(segments, GrainFor(run * 8), [&](int64_t begin, int64_t end) {
    Walker at(b, outer, last);
    at.Start(begin);
    for (int64_t s = begin; s < end; s++, at.Next()) {
      const int64_t o = at.offset(), g = at.group();
      if (rows) loops.standardize(x + o, y + o, run, mean[g], denominator[g]);
      else loops.standardizeColumns(x + o, y + o, run, mean.data() + g, denominator.data() + g);
    }
  });
}

}  // namespace

Napi::Value MeanVarianceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "meanVariance";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const std::vector<int64_t> dims = ExpectIntegerList(info, 2, kMaxViewRank, 0, kMaxSafe, ctx, "dims");
  if (CheckedProduct(env, dims, ctx, "dims") != x.length) ThrowArgument(env, ctx, "x must have Π dims elements");
  const ElementsView y = ExpectFloats(info, 1, x.length, ctx, "y");
  const int64_t rank = static_cast<int64_t>(dims.size());
  const std::vector<int64_t> axes = ExpectIntegerList(info, 3, kMaxViewRank, 0, std::max<int64_t>(rank - 1, 0), ctx, "axes");
  if (rank == 0 && !axes.empty()) ThrowArgument(env, ctx, "axes must be empty for a scalar");
  const int threads = ReadThreadCount(info, 4, ctx);
  if (x.length == 0) return env.Undefined();
  std::vector<bool> normalized(dims.size(), false);
  for (int64_t a : axes) normalized[static_cast<size_t>(a)] = true;
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    MeanVariance(static_cast<const float*>(x.data), static_cast<float*>(y.data), MergeBlocks(dims, normalized));
  });
  return env.Undefined();
}

}  // namespace switchyard
