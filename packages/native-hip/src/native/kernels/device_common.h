// Shared pieces of the kernel sources (*.hip only; host code includes launch.h instead): element
// conversions, the unary math used by elementwise and epilogue kernels, launch geometry, index maps
// for broadcasting/strided access, and warp/block reductions written against the queried warpSize.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "launch.h"

namespace switchyard::kernels {

constexpr unsigned kBlockSize = 256;
// Enough blocks to fill any current GPU several times over; grid-stride loops cover the rest.
constexpr int64_t kMaxBlocks = 65535;

inline unsigned BlocksFor(int64_t count, int64_t per_block = kBlockSize) {
  int64_t blocks = (count + per_block - 1) / per_block;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// Warp size of the current device, queried once per device (host side; kernels use warpSize).
// Used only to size grids: kernels stay correct for any answer because they loop over their work.
inline int CurrentWarpSize() {
  static int cached[64] = {};
  int device = 0;
  if (hipGetDevice(&device) != hipSuccess || device < 0 || device >= 64) return 32;
  if (cached[device] == 0) {
    int size = 0;
    if (hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device) != hipSuccess || size <= 0) size = 32;
    cached[device] = size;
  }
  return cached[device];
}

// ---- element access: fp16 is stored as __half and computed in float

template <typename T>
__device__ __forceinline__ float ToFloat(T v) { return static_cast<float>(v); }
template <>
__device__ __forceinline__ float ToFloat<__half>(__half v) { return __half2float(v); }

template <typename T>
__device__ __forceinline__ T FromFloat(float v) { return static_cast<T>(v); }
template <>
__device__ __forceinline__ __half FromFloat<__half>(float v) { return __float2half(v); }

// ---- unary math (compile-time op folds the switch; epilogues pass a run-time op, a uniform branch)

__device__ __forceinline__ float ApplyUnary(UnaryOp op, float x, UnaryParams p) {
  switch (op) {
    case UnaryOp::kIdentity: return x;
    case UnaryOp::kRelu: return x < 0.0f ? 0.0f : x;  // NaN passes through, as in max(x, 0) of numpy
    case UnaryOp::kLeakyRelu: return x < 0.0f ? p.alpha * x : x;
    case UnaryOp::kSigmoid: return 1.0f / (1.0f + expf(-x));
    case UnaryOp::kTanh: return tanhf(x);
    case UnaryOp::kGeluErf: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case UnaryOp::kGeluTanh: {
      const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + tanhf(inner));
    }
    case UnaryOp::kHardSigmoid: {
      const float v = p.alpha * x + p.beta;
      return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case UnaryOp::kHardSwish: {
      const float v = x * (1.0f / 6.0f) + 0.5f;
      return x * (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v));
    }
    case UnaryOp::kClip: return x < p.alpha ? p.alpha : (x > p.beta ? p.beta : x);
    case UnaryOp::kErf: return erff(x);
    case UnaryOp::kExp: return expf(x);
    case UnaryOp::kLog: return logf(x);
    case UnaryOp::kSqrt: return sqrtf(x);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return fabsf(x);
    case UnaryOp::kReciprocal: return 1.0f / x;
    case UnaryOp::kSwish: return x / (1.0f + expf(-p.alpha * x));
    case UnaryOp::kElu: return x < 0.0f ? p.alpha * expm1f(x) : x;
    case UnaryOp::kSoftplus: return x > 20.0f ? x : log1pf(expf(x));
    case UnaryOp::kMish: return x * tanhf(x > 20.0f ? x : log1pf(expf(x)));
    case UnaryOp::kSelu: return p.beta * (x <= 0.0f ? p.alpha * expm1f(x) : x);
    case UnaryOp::kSoftsign: return x / (1.0f + fabsf(x));
  }
  return x;
}

// ---- index maps: up to kMaxRank output dims, each operand's element stride per output dim

template <int kOperands>
struct IndexMap {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kOperands][kMaxRank] = {};
};

// Offsets of output element `index` in each operand. Walks dims from the last; dims beyond `rank`
// are skipped (the loop is unrolled, so the guard is a predicate, not a branch per element).
template <int kOperands>
__device__ __forceinline__ void OperandOffsets(const IndexMap<kOperands>& map, int64_t index, int64_t* offsets) {
#pragma unroll
  for (int k = 0; k < kOperands; ++k) offsets[k] = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < map.rank) {
      const int64_t dim = map.dims[d];
      const int64_t coord = index % dim;
      index /= dim;
#pragma unroll
      for (int k = 0; k < kOperands; ++k) offsets[k] += coord * map.strides[k][d];
    }
  }
}

// The same walk in 32-bit unsigned arithmetic: 64-bit division is a long software sequence on GPUs,
// and it was most of the time of broadcast and transpose kernels (BERT's bias adds ran at ~0.7 TB/s).
// Only for maps FitsIn32 accepts: non-negative strides, every offset below 2^31. (A slice with a
// negative step reads below its base pointer: negative offsets, which unsigned math cannot hold.)
template <int kOperands>
__device__ __forceinline__ void OperandOffsets32(const IndexMap<kOperands>& map, uint32_t index, uint32_t* offsets) {
#pragma unroll
  for (int k = 0; k < kOperands; ++k) offsets[k] = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < map.rank) {
      const uint32_t dim = static_cast<uint32_t>(map.dims[d]);
      const uint32_t coord = index % dim;
      index /= dim;
#pragma unroll
      for (int k = 0; k < kOperands; ++k) offsets[k] += coord * static_cast<uint32_t>(map.strides[k][d]);
    }
  }
}

// Host side: whether `count` output elements and every operand offset of `map` fit in 31 bits.
template <int kOperands>
inline bool FitsIn32(const IndexMap<kOperands>& map, int64_t count) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (count >= kLimit) return false;
  for (int k = 0; k < kOperands; ++k) {
    int64_t reach = 0;
    for (int d = 0; d < map.rank; ++d) {
      if (map.strides[k][d] < 0) return false;
      reach += (map.dims[d] - 1) * map.strides[k][d];
      if (reach >= kLimit) return false;
    }
  }
  return true;
}

// Drops size-1 dims and merges neighbours that every operand walks contiguously, so common cases
// (same shape, bias along one axis, scalar) reach rank 1-2 and the per-element division count falls.
template <int kOperands>
inline void CollapseIndexMap(IndexMap<kOperands>* map) {
  IndexMap<kOperands> out;
  for (int d = 0; d < map->rank; ++d) {
    if (map->dims[d] == 1) continue;
    if (out.rank > 0) {
      bool mergeable = true;
      const int last = out.rank - 1;
      for (int k = 0; k < kOperands; ++k) {
        if (out.strides[k][last] != map->strides[k][d] * map->dims[d]) mergeable = false;
      }
      if (mergeable) {
        out.dims[last] *= map->dims[d];
        for (int k = 0; k < kOperands; ++k) out.strides[k][last] = map->strides[k][d];
        continue;
      }
    }
    out.dims[out.rank] = map->dims[d];
    for (int k = 0; k < kOperands; ++k) out.strides[k][out.rank] = map->strides[k][d];
    ++out.rank;
  }
  *map = out;
}

// Fills operand k's strides for numpy broadcasting of `shape` into `out` (right-aligned; size-1
// dims get stride 0). False when `shape` does not broadcast to `out`.
template <int kOperands>
inline bool SetBroadcastStrides(IndexMap<kOperands>* map, int k, const TensorShape& shape, const TensorShape& out) {
  if (shape.rank > out.rank || out.rank > kMaxRank) return false;
  int64_t stride = 1;
  for (int d = out.rank - 1; d >= 0; --d) {
    const int sd = d - (out.rank - shape.rank);
    const int64_t dim = sd >= 0 ? shape.dims[sd] : 1;
    if (dim != out.dims[d] && dim != 1) return false;
    map->strides[k][d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  return true;
}

template <int kOperands>
inline void SetOutputDims(IndexMap<kOperands>* map, const TensorShape& out) {
  map->rank = out.rank;
  for (int d = 0; d < out.rank; ++d) map->dims[d] = out.dims[d];
}

// ---- byte-copy element types: movement kernels move bits, so one instantiation per element size

template <size_t kBytes>
struct BitsOf;
template <> struct BitsOf<1> { using type = uint8_t; };
template <> struct BitsOf<2> { using type = uint16_t; };
template <> struct BitsOf<4> { using type = uint32_t; };
template <> struct BitsOf<8> { using type = uint64_t; };
struct alignas(16) Bits128 { uint64_t lo, hi; };
template <> struct BitsOf<16> { using type = Bits128; };

// Calls f(E{}) with E an unsigned word of `bytes` bytes; false when unsupported. Element-sized
// kernels leave kMaxBytes at 8; word-moving kernels (Gather, Concat) raise it to 16.
template <size_t kMaxBytes = 8, typename F>
inline bool DispatchBySize(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    case 16:
      if constexpr (kMaxBytes >= 16) {
        f(Bits128{});
        return true;
      }
      return false;
  }
  return false;
}

// Calls f(float{}) or f(__half{}) for the arithmetic dtypes; false for others.
template <typename F>
inline bool DispatchFloat(DType dtype, F&& f) {
  if (dtype == DType::kFloat32) { f(float{}); return true; }
  if (dtype == DType::kFloat16) { f(__half{}); return true; }
  return false;
}

// ---- reductions across a warp and a block, sized by the device's warpSize

enum class Combine : int { kSum = 0, kMax, kMin };

template <Combine kCombine>
__device__ __forceinline__ float CombineValues(float a, float b) {
  if constexpr (kCombine == Combine::kSum) return a + b;
  // NaN wins, as numpy's max/min propagate it.
  if constexpr (kCombine == Combine::kMax) return (a > b || a != a) ? a : b;
  return (a < b || a != a) ? a : b;
}

template <Combine kCombine>
__device__ __forceinline__ float CombineIdentity() {
  if constexpr (kCombine == Combine::kSum) return 0.0f;
  if constexpr (kCombine == Combine::kMax) return -INFINITY;
  return INFINITY;
}

template <Combine kCombine>
__device__ __forceinline__ float WarpReduce(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
    v = CombineValues<kCombine>(v, SwitchyardShflXor(v, offset));
  }
  return v;  // every lane holds the result (xor butterfly)
}

// Whole-block reduction; every thread gets the result. `scratch` holds one float per warp (32 is
// enough for 1024 threads at any warp size >= 32). blockDim.x must be a multiple of warpSize.
template <Combine kCombine>
__device__ __forceinline__ float BlockReduce(float v, float* scratch) {
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  v = WarpReduce<kCombine>(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : CombineIdentity<kCombine>();
  v = WarpReduce<kCombine>(v);
  __syncthreads();  // scratch is free for the next call
  return v;
}

// A team of threads working on one row: a warp (short rows, several rows per block) or the whole
// block (long rows). Reduce() combines over the team; every member gets the result.
struct WarpTeam {
  __device__ int lane() const { return threadIdx.x % warpSize; }
  __device__ int size() const { return warpSize; }
  __device__ int first_row() const { return blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize; }
  __device__ int64_t row_stride() const { return static_cast<int64_t>(gridDim.x) * (blockDim.x / warpSize); }
  template <Combine kCombine>
  __device__ float Reduce(float v, float*) const { return WarpReduce<kCombine>(v); }
};

struct BlockTeam {
  __device__ int lane() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  __device__ int first_row() const { return blockIdx.x; }
  __device__ int64_t row_stride() const { return gridDim.x; }
  template <Combine kCombine>
  __device__ float Reduce(float v, float* scratch) const { return BlockReduce<kCombine>(v, scratch); }
};

}  // namespace switchyard::kernels
