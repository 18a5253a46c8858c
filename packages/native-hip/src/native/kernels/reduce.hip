// Reductions over one contiguous range of axes: x is viewed as [outer, reduce, inner].
//   inner == 1: rows of `reduce` contiguous values, one warp per row (short rows) or one block per
//               row (long rows), combined with warp shuffles sized by warpSize.
//   inner  > 1: columns; a 2-D block walks `inner` along x (coalesced) and splits `reduce` along y,
//               then combines the y partials through shared memory.
// Accumulation is float32 for both dtypes.
#include "device_common.h"

namespace switchyard::kernels {
namespace {

template <ReduceOp kOp>
struct ReduceTraits {
  static constexpr Combine kCombine =
      kOp == ReduceOp::kMax ? Combine::kMax : (kOp == ReduceOp::kMin ? Combine::kMin : Combine::kSum);
  // LogSumExp runs a max pass first and sums exp(x - shift); the others ignore shift.
  static constexpr bool kNeedsShift = kOp == ReduceOp::kLogSumExp;

  __device__ static float Transform(float x, float shift) {
    if constexpr (kOp == ReduceOp::kSumSquare || kOp == ReduceOp::kL2) return x * x;
    if constexpr (kOp == ReduceOp::kL1) return fabsf(x);
    if constexpr (kOp == ReduceOp::kLogSumExp) return expf(x - shift);
    return x;
  }
  __device__ static float Finalize(float acc, int64_t count, float shift) {
    if constexpr (kOp == ReduceOp::kMean) return acc / static_cast<float>(count);
    if constexpr (kOp == ReduceOp::kL2) return sqrtf(acc);
    if constexpr (kOp == ReduceOp::kLogSumExp) return logf(acc) + shift;
    return acc;
  }
};

// An infinite maximum would turn exp(x - shift) into NaN; shifting by 0 then gives the right +-inf.
__device__ __forceinline__ float UsableShift(float m) { return isfinite(m) ? m : 0.0f; }

template <ReduceOp kOp, typename T, typename Team>
__global__ void RowReduceKernel(const T* __restrict__ x, T* __restrict__ out, int64_t rows, int64_t cols) {
  using Traits = ReduceTraits<kOp>;
  __shared__ float scratch[32];
  Team team;
  for (int64_t row = team.first_row(); row < rows; row += team.row_stride()) {
    const T* p = x + row * cols;
    float shift = 0.0f;
    if constexpr (Traits::kNeedsShift) {
      float m = -INFINITY;
      for (int64_t c = team.lane(); c < cols; c += team.size()) m = CombineValues<Combine::kMax>(m, ToFloat(p[c]));
      shift = UsableShift(team.template Reduce<Combine::kMax>(m, scratch));
    }
    float acc = CombineIdentity<Traits::kCombine>();
    for (int64_t c = team.lane(); c < cols; c += team.size()) {
      acc = CombineValues<Traits::kCombine>(acc, Traits::Transform(ToFloat(p[c]), shift));
    }
    acc = team.template Reduce<Traits::kCombine>(acc, scratch);
    if (team.lane() == 0) out[row] = FromFloat<T>(Traits::Finalize(acc, cols, shift));
  }
}

// Combines the blockDim.y partials of each column x; every thread gets its column's result.
template <Combine kCombine>
__device__ float ColumnCombine(float v, float* scratch) {
  const int tx = threadIdx.x, ty = threadIdx.y, width = blockDim.x;
  scratch[ty * width + tx] = v;
  __syncthreads();
  if (ty == 0) {
    for (int r = 1; r < static_cast<int>(blockDim.y); ++r) v = CombineValues<kCombine>(v, scratch[r * width + tx]);
    scratch[tx] = v;
  }
  __syncthreads();
  v = scratch[tx];
  __syncthreads();
  return v;
}

template <ReduceOp kOp, typename T>
__global__ void ColumnReduceKernel(const T* __restrict__ x, T* __restrict__ out, int64_t outer, int64_t reduce,
                                   int64_t inner, int64_t column_tiles) {
  using Traits = ReduceTraits<kOp>;
  __shared__ float scratch[kBlockSize];
  const int64_t tiles = outer * column_tiles;
  // Every thread of a block walks the same tiles, so the barriers inside ColumnCombine line up.
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t o = tile / column_tiles;
    const int64_t j = (tile % column_tiles) * blockDim.x + threadIdx.x;
    const bool valid = j < inner;
    const T* base = x + o * reduce * inner + j;
    float shift = 0.0f;
    if constexpr (Traits::kNeedsShift) {
      float m = -INFINITY;
      if (valid) {
        for (int64_t k = threadIdx.y; k < reduce; k += blockDim.y) m = CombineValues<Combine::kMax>(m, ToFloat(base[k * inner]));
      }
      shift = UsableShift(ColumnCombine<Combine::kMax>(m, scratch));
    }
    float acc = CombineIdentity<Traits::kCombine>();
    if (valid) {
      for (int64_t k = threadIdx.y; k < reduce; k += blockDim.y) {
        acc = CombineValues<Traits::kCombine>(acc, Traits::Transform(ToFloat(base[k * inner]), shift));
      }
    }
    acc = ColumnCombine<Traits::kCombine>(acc, scratch);
    if (threadIdx.y == 0 && valid) out[o * inner + j] = FromFloat<T>(Traits::Finalize(acc, reduce, shift));
  }
}

template <ReduceOp kOp, typename T>
hipError_t LaunchReduceTyped(const void* x, int64_t outer, int64_t reduce, int64_t inner, void* out,
                             hipStream_t stream) {
  const T* tx = static_cast<const T*>(x);
  T* tout = static_cast<T*>(out);
  if (inner == 1) {
    // Rows up to a few warps long take one warp each; longer rows use the whole block.
    const int warp = CurrentWarpSize();
    if (reduce <= 4 * warp) {
      const int64_t rows_per_block = kBlockSize / warp;
      RowReduceKernel<kOp, T, WarpTeam><<<BlocksFor(outer, rows_per_block), kBlockSize, 0, stream>>>(tx, tout, outer,
                                                                                                   reduce);
    } else {
      RowReduceKernel<kOp, T, BlockTeam><<<BlocksFor(outer, 1), kBlockSize, 0, stream>>>(tx, tout, outer, reduce);
    }
  } else {
    unsigned width = 1;
    while (width < 32 && width < inner) width <<= 1;  // a column tile: 32 floats = one 128-byte line
    const dim3 block(width, kBlockSize / width);
    const int64_t column_tiles = (inner + width - 1) / width;
    ColumnReduceKernel<kOp, T><<<BlocksFor(outer * column_tiles, 1), block, 0, stream>>>(tx, tout, outer, reduce,
                                                                                         inner, column_tiles);
  }
  return hipGetLastError();
}

template <typename T>
hipError_t DispatchReduce(ReduceOp op, const void* x, int64_t outer, int64_t reduce, int64_t inner, void* out,
                          hipStream_t stream) {
  switch (op) {
#define SWITCHYARD_REDUCE_CASE(name) \
  case ReduceOp::name: return LaunchReduceTyped<ReduceOp::name, T>(x, outer, reduce, inner, out, stream);
    SWITCHYARD_REDUCE_CASE(kSum)
    SWITCHYARD_REDUCE_CASE(kMean)
    SWITCHYARD_REDUCE_CASE(kMax)
    SWITCHYARD_REDUCE_CASE(kMin)
    SWITCHYARD_REDUCE_CASE(kSumSquare)
    SWITCHYARD_REDUCE_CASE(kL1)
    SWITCHYARD_REDUCE_CASE(kL2)
    SWITCHYARD_REDUCE_CASE(kLogSumExp)
#undef SWITCHYARD_REDUCE_CASE
  }
  return hipErrorInvalidValue;
}

}  // namespace

hipError_t LaunchReduce(ReduceOp op, DType dtype, const void* x, int64_t outer, int64_t reduce, int64_t inner,
                        void* out, hipStream_t stream) {
  if (outer < 0 || reduce < 0 || inner < 0) return hipErrorInvalidValue;
  if (outer == 0 || inner == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    status = DispatchReduce<decltype(tag)>(op, x, outer, reduce, inner, out, stream);
  });
  return status;
}

}  // namespace switchyard::kernels
