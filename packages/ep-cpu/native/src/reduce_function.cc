#include "reduce_function.h"

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
// Columns per accumulator block of a reduction whose innermost axis is kept.
constexpr int64_t kColumnBlock = 1024;

enum class Reduction { kSum, kMean, kSumSquare, kL1, kL2, kLogSum, kLogSumExp, kMax, kMin, kProd };

struct ReductionInfo {
  const char* name;
  Reduction reduction;
  ReduceOp accumulate;
};

constexpr ReductionInfo kReductions[] = {
    {"sum", Reduction::kSum, ReduceOp::kSum},          {"mean", Reduction::kMean, ReduceOp::kSum},
    {"sumSquare", Reduction::kSumSquare, ReduceOp::kSumSquare}, {"l1", Reduction::kL1, ReduceOp::kSumAbs},
    {"l2", Reduction::kL2, ReduceOp::kSumSquare},      {"logSum", Reduction::kLogSum, ReduceOp::kSum},
    {"logSumExp", Reduction::kLogSumExp, ReduceOp::kSumExp}, {"max", Reduction::kMax, ReduceOp::kMax},
    {"min", Reduction::kMin, ReduceOp::kMin},          {"prod", Reduction::kProd, ReduceOp::kProd},
};

double IdentityOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd: return 1.0;
    case ReduceOp::kMax:
    case ReduceOp::kMaxIgnoreNan: return -INFINITY;
    case ReduceOp::kMin: return INFINITY;
    default: return 0.0;
  }
}

// Two partial accumulations of one output, as the loops' lanes merge.
double MergeOf(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::kProd: return a * b;
    case ReduceOp::kMax: return (b > a || b != b) ? b : a;
    case ReduceOp::kMin: return (b < a || b != b) ? b : a;
    case ReduceOp::kMaxIgnoreNan: return b > a ? b : a;
    default: return a + b;
  }
}

// The TS kernels' `final` expressions; `shift` is LogSumExp's max.
float Finish(Reduction r, double acc, double count, float shift) {
  switch (r) {
    case Reduction::kMean: return static_cast<float>(acc / count);
    case Reduction::kL2: return static_cast<float>(std::sqrt(acc));
    case Reduction::kLogSum: return static_cast<float>(std::log(acc));
    case Reduction::kLogSumExp: return std::isinf(shift) ? shift : static_cast<float>(static_cast<double>(shift) + std::log(acc));
    default: return static_cast<float>(acc);
  }
}

// The reduction's axes merged into groups (size-1 axes dropped): `kept` groups enumerate outputs,
// `reduced` groups the rows summed into each. The innermost group is contiguous in x.
struct Plan {
  struct Group {
    int64_t size;
    int64_t stride;  // in x
  };
  std::vector<Group> kept, reduced;
  bool innerReduced = false;  // the innermost group is reduced (rows) rather than kept (columns)
  int64_t inner = 1;          // its size
};

Plan MakePlan(const std::vector<int64_t>& dims, const std::vector<bool>& isReduced) {
  Plan plan;
  struct Raw {
    int64_t size;
    int64_t stride;
    bool reduced;
  };
  std::vector<Raw> groups;
  int64_t stride = 1;
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; k--) {
    if (dims[k] != 1) {
      if (!groups.empty() && groups.back().reduced == isReduced[k]) groups.back().size *= dims[k];
      else groups.push_back({dims[k], stride, isReduced[k]});
    }
    stride *= dims[k];
  }
  if (groups.empty()) groups.push_back({1, 1, false});
  // groups run innermost first.
  plan.innerReduced = groups[0].reduced;
  plan.inner = groups[0].size;
  for (size_t g = groups.size(); g-- > 1;) (groups[g].reduced ? plan.reduced : plan.kept).push_back({groups[g].size, groups[g].stride});
  return plan;
}

int64_t CountOf(const std::vector<Plan::Group>& groups) {
  int64_t n = 1;
  for (const auto& g : groups) n *= g.size;
  return n;
}

// Offset in x of the `index`-th combination of `groups` (row-major, outermost first).
int64_t OffsetOf(const std::vector<Plan::Group>& groups, int64_t index) {
  int64_t offset = 0;
  for (size_t g = groups.size(); g-- > 0;) {
    offset += (index % groups[g].size) * groups[g].stride;
    index /= groups[g].size;
  }
  return offset;
}

// Accumulates `op` for outputs whose innermost x axis is reduced: each output is a scalar over rows.
void ReduceRows(const vec::Loops& loops, ReduceOp op, const float* x, const Plan& plan, const float* shift, double* acc) {
  const int64_t outputs = CountOf(plan.kept), rows = CountOf(plan.reduced), k = plan.inner;
  const double identity = IdentityOf(op);
  const int team = omp_get_max_threads();
  if (outputs >= team || outputs * rows * k * 4 < team * kParallelBytes) {
    ParallelRanges(outputs, GrainFor(rows * k * 4), [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; o++) {
        const float* base = x + OffsetOf(plan.kept, o);
        double a = identity;
        for (int64_t r = 0; r < rows; r++) a = loops.reduceRow(op, base + OffsetOf(plan.reduced, r), k, a, shift ? shift[o] : 0.0f);
        acc[o] = a;
      }
    });
    return;
  }
  // Fewer outputs than threads: each output's elements split over the team, then the parts merge.
  std::vector<double> parts(static_cast<size_t>(team));
  for (int64_t o = 0; o < outputs; o++) {
    const float* base = x + OffsetOf(plan.kept, o);
    const float s = shift ? shift[o] : 0.0f;
    std::fill(parts.begin(), parts.end(), identity);
    const int64_t pieces = std::min<int64_t>(team, std::max<int64_t>(1, rows * k * 4 / kParallelBytes));
    ParallelRanges(pieces, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; p++) {
        // Piece p covers elements [p · total / pieces, (p + 1) · total / pieces) of the rows laid end to end.
        const int64_t total = rows * k, from = total * p / pieces, to = total * (p + 1) / pieces;
        double a = identity;
        for (int64_t e = from; e < to;) {
          const int64_t r = e / k, within = e % k, n = std::min(k - within, to - e);
          a = loops.reduceRow(op, base + OffsetOf(plan.reduced, r) + within, n, a, s);
          e += n;
        }
        parts[static_cast<size_t>(p)] = a;
      }
    });
    double a = identity;
    for (int64_t p = 0; p < pieces; p++) a = MergeOf(op, a, parts[static_cast<size_t>(p)]);
    acc[o] = a;
  }
}

// Accumulates `op` for outputs whose innermost x axis is kept: rows of `inner` outputs, accumulated a
// column block at a time.
void ReduceColumns(const vec::Loops& loops, ReduceOp op, const float* x, const Plan& plan, const float* shift, double* acc) {
  const int64_t outRows = CountOf(plan.kept), rows = CountOf(plan.reduced), n = plan.inner;
  const int64_t blocks = (n + kColumnBlock - 1) / kColumnBlock;
  const double identity = IdentityOf(op);
  ParallelRanges(outRows * blocks, GrainFor(rows * std::min(n, kColumnBlock) * 4), [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; item++) {
      const int64_t o = item / blocks, j0 = (item % blocks) * kColumnBlock, w = std::min(kColumnBlock, n - j0);
      double* a = acc + o * n + j0;
      for (int64_t j = 0; j < w; j++) a[j] = identity;
      const float* base = x + OffsetOf(plan.kept, o) + j0;
      for (int64_t r = 0; r < rows; r++) loops.reduceColumns(op, base + OffsetOf(plan.reduced, r), w, a, shift ? shift + o * n + j0 : nullptr);
    }
  });
}

void Accumulate(const vec::Loops& loops, ReduceOp op, const float* x, const Plan& plan, const float* shift, double* acc) {
  if (plan.innerReduced) ReduceRows(loops, op, x, plan, shift, acc);
  else ReduceColumns(loops, op, x, plan, shift, acc);
}

}  // namespace

Napi::Value ReduceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "reduce";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const std::vector<int64_t> dims = ExpectIntegerList(info, 1, kMaxViewRank, 0, kMaxSafe, ctx, "dims");
  const int rank = static_cast<int>(dims.size());
  const std::vector<int64_t> axes = ExpectIntegerList(info, 2, kMaxViewRank, 0, rank > 0 ? rank - 1 : 0, ctx, "axes");
  const std::string name = ExpectName(info, 3, ctx, "op");
  const int threads = ReadThreadCount(info, 5, ctx);
  const ReductionInfo* op = nullptr;
  for (const ReductionInfo& r : kReductions) {
    if (name == r.name) op = &r;
  }
  if (!op) ThrowArgument(env, ctx, "op '" + name + "' is not a reduction");
  if (rank == 0 && !axes.empty()) ThrowArgument(env, ctx, "a scalar has no axes to reduce");
  if (CheckedProduct(env, dims, ctx, "dims") != x.length) ThrowArgument(env, ctx, "x must have Π dims elements");
  std::vector<bool> isReduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (isReduced[a]) ThrowArgument(env, ctx, "axes repeat axis " + std::to_string(a));
    isReduced[a] = true;
  }
  int64_t outputs = 1, count = 1;
  for (int k = 0; k < rank; k++) (isReduced[k] ? count : outputs) *= dims[k];
  const ElementsView y = ExpectFloats(info, 4, outputs, ctx, "y");
  auto* out = static_cast<float*>(y.data);
  if (outputs == 0) return env.Undefined();
  const double identity = IdentityOf(op->accumulate);
  if (count == 0) {
    const float empty = Finish(op->reduction, identity, 0.0, -INFINITY);
    for (int64_t o = 0; o < outputs; o++) out[o] = empty;
    return env.Undefined();
  }
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const Plan plan = MakePlan(dims, isReduced);
    const auto* in = static_cast<const float*>(x.data);
    std::vector<double> acc(static_cast<size_t>(outputs));
    std::vector<float> shift;
    if (op->reduction == Reduction::kLogSumExp) {
      // First pass: the max (NaNs skipped), by which the second shifts so exp cannot overflow.
      Accumulate(loops, ReduceOp::kMaxIgnoreNan, in, plan, nullptr, acc.data());
      shift.assign(acc.begin(), acc.end());
    }
    Accumulate(loops, op->accumulate, in, plan, shift.empty() ? nullptr : shift.data(), acc.data());
    const double n = static_cast<double>(count);
    for (int64_t o = 0; o < outputs; o++) out[o] = Finish(op->reduction, acc[o], n, shift.empty() ? 0.0f : shift[o]);
  });
  return env.Undefined();
}

Napi::Value ArgReduceJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "argReduce";
  const ElementsView x = ExpectFloats(info, 0, -1, ctx, "x");
  const int64_t outer = ExpectInteger(info, 1, 0, kMaxSafe, ctx, "outer");
  const int64_t len = ExpectInteger(info, 2, 1, kMaxSafe, ctx, "len");
  const int64_t inner = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "inner");
  if (!info[4].IsBoolean() || !info[5].IsBoolean()) ThrowArgument(env, ctx, "isMax and selectLast must be booleans");
  const bool isMax = info[4].As<Napi::Boolean>().Value(), last = info[5].As<Napi::Boolean>().Value();
  const int threads = ReadThreadCount(info, 7, ctx);
  if (static_cast<double>(outer) * static_cast<double>(len) * static_cast<double>(inner) != static_cast<double>(x.length)) {
    ThrowArgument(env, ctx, "x must have outer × len × inner elements");
  }
  const ElementsView y = ExpectElements(info, 6, outer * inner, ctx, "y");
  if (y.type != napi_bigint64_array) ThrowArgument(env, ctx, "y must be a BigInt64Array");
  if (x.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const vec::Loops& loops = VectorLoops();
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<int64_t*>(y.data);
    if (inner == 1) {
      ParallelRanges(outer, GrainFor(len * 4), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; o++) out[o] = loops.argReduceRow(in + o * len, len, isMax, last);
      });
      return;
    }
    const int64_t block = std::min<int64_t>(inner, 512), blocks = (inner + block - 1) / block;
    std::vector<float> scratch(static_cast<size_t>(omp_get_max_threads() * block));
    ParallelRanges(outer * blocks, GrainFor(len * block * 4), [&](int64_t begin, int64_t end) {
      float* values = scratch.data() + omp_get_thread_num() * block;
      for (int64_t item = begin; item < end; item++) {
        const int64_t o = item / blocks, j0 = (item % blocks) * block, w = std::min(block, inner - j0);
        loops.argReduceColumns(in + o * len * inner + j0, len, inner, w, isMax, last, out + o * inner + j0, values);
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
