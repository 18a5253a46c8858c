// Elementwise kernels: binary arithmetic and comparisons with numpy broadcasting, Where, unary math
// and activations, Cast. One source for both vendors (the vendor header maps HIP names on NVIDIA).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// Integer operands compute in int64 (exact for every int32/int64 value), floats in float.
template <typename T>
constexpr bool kIsFloatStorage = std::is_same_v<T, float> || std::is_same_v<T, __half>;
template <typename T>
using ComputeOf = std::conditional_t<kIsFloatStorage<T>, float, int64_t>;

template <typename T>
__device__ __forceinline__ ComputeOf<T> LoadValue(T v) {
  if constexpr (kIsFloatStorage<T>) return ToFloat(v);
  else return static_cast<int64_t>(v);
}

template <typename T, typename C>
__device__ __forceinline__ T StoreValue(C v) {
  if constexpr (kIsFloatStorage<T>) return FromFloat<T>(v);
  else return static_cast<T>(v);
}

__device__ __forceinline__ int64_t IntPow(int64_t base, int64_t exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? ((exponent & 1) ? -1 : 1) : 0;
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

template <BinaryOp kOp, typename C>
__device__ __forceinline__ C ApplyBinary(C a, C b) {
  constexpr bool kFloat = std::is_same_v<C, float>;
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kDiv) {
    if constexpr (kFloat) return a / b;
    else return b == 0 ? 0 : a / b;  // C++ division truncates toward zero, as ONNX integer Div does
  }
  if constexpr (kOp == BinaryOp::kPow) {
    if constexpr (kFloat) return powf(a, b);
    else return IntPow(a, b);
  }
  if constexpr (kOp == BinaryOp::kMax) {
    if constexpr (kFloat) return CombineValues<Combine::kMax>(a, b);
    else return a > b ? a : b;
  }
  if constexpr (kOp == BinaryOp::kMin) {
    if constexpr (kFloat) return CombineValues<Combine::kMin>(a, b);
    else return a < b ? a : b;
  }
  return C{};
}

template <BinaryOp kOp, typename C>
__device__ __forceinline__ uint8_t ApplyCompare(C a, C b) {
  if constexpr (kOp == BinaryOp::kEqual) return a == b;
  if constexpr (kOp == BinaryOp::kLess) return a < b;
  if constexpr (kOp == BinaryOp::kGreater) return a > b;
  if constexpr (kOp == BinaryOp::kLessOrEqual) return a <= b;
  if constexpr (kOp == BinaryOp::kGreaterOrEqual) return a >= b;
  if constexpr (kOp == BinaryOp::kAnd) return (a != 0) && (b != 0);
  if constexpr (kOp == BinaryOp::kOr) return (a != 0) || (b != 0);
  if constexpr (kOp == BinaryOp::kXor) return (a != 0) != (b != 0);
  return 0;
}

// A variable template, not a constexpr function: nvcc would treat a function as host-only.
template <BinaryOp kOp>
constexpr bool kIsComparison = kOp >= BinaryOp::kEqual;
template <BinaryOp kOp>
constexpr bool kIsLogical = kOp >= BinaryOp::kAnd;

// Which (op, storage type) pairs exist: logical ops over bool only; bool serves Equal too.
template <BinaryOp kOp, typename T>
constexpr bool kBinaryServes = std::is_same_v<T, uint8_t> ? (kIsLogical<kOp> || kOp == BinaryOp::kEqual) : !kIsLogical<kOp>;

template <BinaryOp kOp, typename T>
__device__ __forceinline__ void StoreBinary(T* out, uint8_t* out_bool, int64_t i, T a, T b) {
  if constexpr (kIsComparison<kOp>) {
    out_bool[i] = ApplyCompare<kOp>(LoadValue(a), LoadValue(b));
  } else {
    out[i] = StoreValue<T>(ApplyBinary<kOp>(LoadValue(a), LoadValue(b)));
  }
}

// Rank <= 1 after collapsing: each operand is contiguous (stride 1) or a scalar (stride 0).
// Binary kernels take no __restrict__: out may be an operand of out's shape (in place).
template <BinaryOp kOp, typename T>
__global__ void BinaryLinearKernel(const T* a, int64_t a_stride, const T* b, int64_t b_stride, T* out,
                                   uint8_t* out_bool, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    StoreBinary<kOp>(out, out_bool, i, a[i * a_stride], b[i * b_stride]);
  }
}

// The same with 32-bit index math (FitsIn32): the common case, several times faster.
template <BinaryOp kOp, typename T>
__global__ void BinaryBroadcastKernel32(const T* a, const T* b, T* out, uint8_t* out_bool, uint32_t count,
                                        IndexMap<2> map) {
  const uint32_t step = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
    uint32_t offsets[2];
    OperandOffsets32(map, i, offsets);
    StoreBinary<kOp>(out, out_bool, i, a[offsets[0]], b[offsets[1]]);
  }
}

// Rows of a long last axis along which each operand is contiguous or constant (bias adds [rows, n] +
// [n], BERT's mask [b, h*s, s] + [b, 1, s]): a block per row, the row's operand offsets computed once,
// no division per element. `outer` is the map without its last axis.
template <BinaryOp kOp, typename T>
__global__ void BinaryRowsKernel(const T* a, const T* b, T* out, uint8_t* out_bool, uint32_t rows, uint32_t inner,
                                 IndexMap<2> outer, uint32_t a_step, uint32_t b_step) {
  for (uint32_t row = blockIdx.x; row < rows; row += gridDim.x) {
    uint32_t base[2];
    OperandOffsets32(outer, row, base);
    const uint32_t first = row * inner;
    for (uint32_t c = threadIdx.x; c < inner; c += blockDim.x) {
      StoreBinary<kOp>(out, out_bool, first + c, a[base[0] + c * a_step], b[base[1] + c * b_step]);
    }
  }
}

// The same for many rows shorter than 256: a warp a row, several rows a block, the grid striding over
// the rest. A block per 128-wide row leaves half its threads idle and the grid at tens of thousands of
// blocks: on the H200, BERT b32's mask add [32, 1536, 128] + [32, 1, 128] takes 20 us this way against
// 31 (float16 13 against 31), [4096, 100] + [100] 2.5 against 3.8; with fewer rows (BERT b1's 1536)
// the block per row stays a little faster (2.1 against 2.3 us).
constexpr uint32_t kWarpRowsFrom = 4096;
template <BinaryOp kOp, typename T>
__global__ void BinaryWarpRowsKernel(const T* a, const T* b, T* out, uint8_t* out_bool, uint32_t rows, uint32_t inner,
                                     IndexMap<2> outer, uint32_t a_step, uint32_t b_step) {
  const uint32_t warps = blockDim.x / warpSize;
  const uint32_t lane = threadIdx.x % warpSize;
  for (uint32_t row = blockIdx.x * warps + threadIdx.x / warpSize; row < rows; row += gridDim.x * warps) {
    uint32_t base[2];
    OperandOffsets32(outer, row, base);
    const uint32_t first = row * inner;
    for (uint32_t c = lane; c < inner; c += warpSize) {
      StoreBinary<kOp>(out, out_bool, first + c, a[base[0] + c * a_step], b[base[1] + c * b_step]);
    }
  }
}

template <BinaryOp kOp, typename T>
__global__ void BinaryBroadcastKernel(const T* a, const T* b, T* out, uint8_t* out_bool, int64_t count,
                                      IndexMap<2> map) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    int64_t offsets[2];
    OperandOffsets(map, i, offsets);
    StoreBinary<kOp>(out, out_bool, i, a[offsets[0]], b[offsets[1]]);
  }
}

template <BinaryOp kOp, typename T>
hipError_t LaunchBinaryTyped(const void* a, const void* b, void* out, int64_t count, const IndexMap<2>& map,
                             hipStream_t stream) {
  if constexpr (!kBinaryServes<kOp, T>) {
    return hipErrorInvalidValue;
  } else {
  const T* ta = static_cast<const T*>(a);
  const T* tb = static_cast<const T*>(b);
  T* tout = kIsComparison<kOp> ? nullptr : static_cast<T*>(out);
  uint8_t* bout = kIsComparison<kOp> ? static_cast<uint8_t*>(out) : nullptr;
  const unsigned blocks = BlocksFor(count);
  if constexpr (!kIsFloatStorage<T>) {
    // Integer and bool tensors are shape arithmetic and masks: small, so the generic kernels serve.
    if (FitsIn32(map, count)) {
      BinaryBroadcastKernel32<kOp, T><<<blocks, kBlockSize, 0, stream>>>(ta, tb, tout, bout, static_cast<uint32_t>(count), map);
    } else {
      BinaryBroadcastKernel<kOp, T><<<blocks, kBlockSize, 0, stream>>>(ta, tb, tout, bout, count, map);
    }
    return hipGetLastError();
  } else if (map.rank <= 1) {
    const int64_t sa = map.rank == 0 ? 0 : map.strides[0][0];
    const int64_t sb = map.rank == 0 ? 0 : map.strides[1][0];
    BinaryLinearKernel<kOp, T><<<blocks, kBlockSize, 0, stream>>>(ta, sa, tb, sb, tout, bout, count);
  } else if (count > 0 && FitsIn32(map, count) && map.dims[map.rank - 1] >= 64 && map.strides[0][map.rank - 1] <= 1 &&
             map.strides[1][map.rank - 1] <= 1 && map.strides[0][map.rank - 1] >= 0 && map.strides[1][map.rank - 1] >= 0) {
    IndexMap<2> outer = map;
    const int last = map.rank - 1;
    outer.rank = last;
    const auto inner = static_cast<uint32_t>(map.dims[last]);
    const auto rows = static_cast<uint32_t>(count / map.dims[last]);
    const auto a_step = static_cast<uint32_t>(map.strides[0][last]);
    const auto b_step = static_cast<uint32_t>(map.strides[1][last]);
    if (inner >= 256 || rows < kWarpRowsFrom) {
      const unsigned threads = inner >= 256 ? 256 : 128;
      const unsigned grid = rows < 65535u ? rows : 65535u;
      BinaryRowsKernel<kOp, T><<<grid, threads, 0, stream>>>(ta, tb, tout, bout, rows, inner, outer, a_step, b_step);
    } else {
      const unsigned rows_per_block = kBlockSize / static_cast<unsigned>(CurrentWarpSize());
      BinaryWarpRowsKernel<kOp, T><<<BlocksFor(rows, rows_per_block), kBlockSize, 0, stream>>>(ta, tb, tout, bout, rows, inner,
                                                                                               outer, a_step, b_step);
    }
  } else if (FitsIn32(map, count)) {
    BinaryBroadcastKernel32<kOp, T><<<blocks, kBlockSize, 0, stream>>>(ta, tb, tout, bout, static_cast<uint32_t>(count), map);
  } else {
    BinaryBroadcastKernel<kOp, T><<<blocks, kBlockSize, 0, stream>>>(ta, tb, tout, bout, count, map);
  }
  return hipGetLastError();
  }
}

template <typename T>
hipError_t DispatchBinary(BinaryOp op, const void* a, const void* b, void* out, int64_t count,
                          const IndexMap<2>& map, hipStream_t stream) {
  switch (op) {
#define SWITCHYARD_BINARY_CASE(name) \
  case BinaryOp::name: return LaunchBinaryTyped<BinaryOp::name, T>(a, b, out, count, map, stream);
    SWITCHYARD_BINARY_CASE(kAdd)
    SWITCHYARD_BINARY_CASE(kSub)
    SWITCHYARD_BINARY_CASE(kMul)
    SWITCHYARD_BINARY_CASE(kDiv)
    SWITCHYARD_BINARY_CASE(kPow)
    SWITCHYARD_BINARY_CASE(kMax)
    SWITCHYARD_BINARY_CASE(kMin)
    SWITCHYARD_BINARY_CASE(kEqual)
    SWITCHYARD_BINARY_CASE(kLess)
    SWITCHYARD_BINARY_CASE(kGreater)
    SWITCHYARD_BINARY_CASE(kLessOrEqual)
    SWITCHYARD_BINARY_CASE(kGreaterOrEqual)
    SWITCHYARD_BINARY_CASE(kAnd)
    SWITCHYARD_BINARY_CASE(kOr)
    SWITCHYARD_BINARY_CASE(kXor)
#undef SWITCHYARD_BINARY_CASE
  }
  return hipErrorInvalidValue;
}

// ---- Where: bits are copied, so one instantiation per element size serves every dtype

template <typename E>
__global__ void WhereKernel(const uint8_t* __restrict__ cond, const E* __restrict__ x, const E* __restrict__ y,
                            E* __restrict__ out, int64_t count, IndexMap<3> map) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    int64_t offsets[3];
    OperandOffsets(map, i, offsets);
    out[i] = cond[offsets[0]] ? x[offsets[1]] : y[offsets[2]];
  }
}

// ---- unary

// No __restrict__: out may be x (in place), which the API allows.
template <UnaryOp kOp, typename T>
__global__ void UnaryKernel(const T* x, T* out, int64_t count, UnaryParams params) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    out[i] = FromFloat<T>(ApplyUnary(kOp, ToFloat(x[i]), params));
  }
}

template <typename T>
hipError_t DispatchUnary(UnaryOp op, const void* x, void* out, int64_t count, UnaryParams params,
                         hipStream_t stream) {
  const T* tx = static_cast<const T*>(x);
  T* tout = static_cast<T*>(out);
  const unsigned blocks = BlocksFor(count);
  switch (op) {
#define SWITCHYARD_UNARY_CASE(name)                                                      \
  case UnaryOp::name:                                                                    \
    UnaryKernel<UnaryOp::name, T><<<blocks, kBlockSize, 0, stream>>>(tx, tout, count, params); \
    return hipGetLastError();
    SWITCHYARD_UNARY_CASE(kIdentity)
    SWITCHYARD_UNARY_CASE(kRelu)
    SWITCHYARD_UNARY_CASE(kLeakyRelu)
    SWITCHYARD_UNARY_CASE(kSigmoid)
    SWITCHYARD_UNARY_CASE(kTanh)
    SWITCHYARD_UNARY_CASE(kGeluErf)
    SWITCHYARD_UNARY_CASE(kGeluTanh)
    SWITCHYARD_UNARY_CASE(kHardSigmoid)
    SWITCHYARD_UNARY_CASE(kHardSwish)
    SWITCHYARD_UNARY_CASE(kClip)
    SWITCHYARD_UNARY_CASE(kErf)
    SWITCHYARD_UNARY_CASE(kExp)
    SWITCHYARD_UNARY_CASE(kLog)
    SWITCHYARD_UNARY_CASE(kSqrt)
    SWITCHYARD_UNARY_CASE(kNeg)
    SWITCHYARD_UNARY_CASE(kAbs)
    SWITCHYARD_UNARY_CASE(kReciprocal)
    SWITCHYARD_UNARY_CASE(kSwish)
    SWITCHYARD_UNARY_CASE(kElu)
    SWITCHYARD_UNARY_CASE(kSoftplus)
    SWITCHYARD_UNARY_CASE(kMish)
    SWITCHYARD_UNARY_CASE(kSelu)
    SWITCHYARD_UNARY_CASE(kSoftsign)
#undef SWITCHYARD_UNARY_CASE
  }
  return hipErrorInvalidValue;
}

// ---- Cast

template <DType kType> struct StorageOf;
template <> struct StorageOf<DType::kFloat32> { using type = float; };
template <> struct StorageOf<DType::kFloat16> { using type = __half; };
template <> struct StorageOf<DType::kInt32> { using type = int32_t; };
template <> struct StorageOf<DType::kInt64> { using type = int64_t; };
template <> struct StorageOf<DType::kBool> { using type = uint8_t; };
template <> struct StorageOf<DType::kInt8> { using type = int8_t; };
template <> struct StorageOf<DType::kUint8> { using type = uint8_t; };

template <DType kFrom, DType kTo>
__device__ __forceinline__ typename StorageOf<kTo>::type ConvertValue(typename StorageOf<kFrom>::type v) {
  using To = typename StorageOf<kTo>::type;
  constexpr bool kFromFloat = kFrom == DType::kFloat32 || kFrom == DType::kFloat16;
  if constexpr (kFromFloat) {
    const float f = ToFloat(v);
    if constexpr (kTo == DType::kBool) return f != 0.0f ? 1 : 0;
    else if constexpr (kTo == DType::kFloat16) return __float2half(f);
    // float -> int truncates toward zero; to 8 bits through int64, so out-of-range values wrap as the
    // CPU EP's typed-array stores do rather than hitting an undefined narrowing.
    else if constexpr (sizeof(To) == 1) return static_cast<To>(static_cast<int64_t>(f));
    else return static_cast<To>(f);
  } else {
    const int64_t n = static_cast<int64_t>(v);
    if constexpr (kTo == DType::kBool) return n != 0 ? 1 : 0;
    else if constexpr (kTo == DType::kFloat16) return __float2half(static_cast<float>(n));
    else return static_cast<To>(n);
  }
}

template <DType kFrom, DType kTo>
__global__ void CastKernel(const typename StorageOf<kFrom>::type* __restrict__ x,
                           typename StorageOf<kTo>::type* __restrict__ out, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    out[i] = ConvertValue<kFrom, kTo>(x[i]);
  }
}

template <DType kFrom, DType kTo>
hipError_t LaunchCastTyped(const void* x, void* out, int64_t count, hipStream_t stream) {
  CastKernel<kFrom, kTo><<<BlocksFor(count), kBlockSize, 0, stream>>>(
      static_cast<const typename StorageOf<kFrom>::type*>(x), static_cast<typename StorageOf<kTo>::type*>(out),
      count);
  return hipGetLastError();
}

template <DType kFrom>
hipError_t DispatchCastTo(DType to, const void* x, void* out, int64_t count, hipStream_t stream) {
  switch (to) {
    case DType::kFloat32: return LaunchCastTyped<kFrom, DType::kFloat32>(x, out, count, stream);
    case DType::kFloat16: return LaunchCastTyped<kFrom, DType::kFloat16>(x, out, count, stream);
    case DType::kInt32: return LaunchCastTyped<kFrom, DType::kInt32>(x, out, count, stream);
    case DType::kInt64: return LaunchCastTyped<kFrom, DType::kInt64>(x, out, count, stream);
    case DType::kBool: return LaunchCastTyped<kFrom, DType::kBool>(x, out, count, stream);
    case DType::kInt8: return LaunchCastTyped<kFrom, DType::kInt8>(x, out, count, stream);
    case DType::kUint8: return LaunchCastTyped<kFrom, DType::kUint8>(x, out, count, stream);
    default: return hipErrorInvalidValue;
  }
}

// ---- the first cut's same-shape float32 entry

struct LegacyOpMap {
  static BinaryOp Binary(ElementwiseOp op) { return op == ElementwiseOp::kAdd ? BinaryOp::kAdd : BinaryOp::kMul; }
};

}  // namespace

hipError_t LaunchBinary(BinaryOp op, DType dtype, const void* a, const TensorShape& a_shape, const void* b,
                        const TensorShape& b_shape, void* out, const TensorShape& out_shape, hipStream_t stream) {
  IndexMap<2> map;
  if (out_shape.rank > kMaxRank) return hipErrorInvalidValue;
  SetOutputDims(&map, out_shape);
  if (!SetBroadcastStrides(&map, 0, a_shape, out_shape) || !SetBroadcastStrides(&map, 1, b_shape, out_shape)) {
    return hipErrorInvalidValue;
  }
  const int64_t count = out_shape.ElementCount();
  if (count == 0) return hipSuccess;
  CollapseIndexMap(&map);
  switch (dtype) {
    case DType::kFloat32: return DispatchBinary<float>(op, a, b, out, count, map, stream);
    case DType::kFloat16: return DispatchBinary<__half>(op, a, b, out, count, map, stream);
    case DType::kInt32: return DispatchBinary<int32_t>(op, a, b, out, count, map, stream);
    case DType::kInt64: return DispatchBinary<int64_t>(op, a, b, out, count, map, stream);
    case DType::kBool: return DispatchBinary<uint8_t>(op, a, b, out, count, map, stream);
    default: return hipErrorInvalidValue;
  }
}

namespace {
__global__ void NotKernel(const uint8_t* x, uint8_t* out, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) out[i] = x[i] ? 0 : 1;
}
}  // namespace

hipError_t LaunchNot(const uint8_t* x, uint8_t* out, int64_t count, hipStream_t stream) {
  if (count < 0) return hipErrorInvalidValue;
  if (count == 0) return hipSuccess;
  NotKernel<<<BlocksFor(count), kBlockSize, 0, stream>>>(x, out, count);
  return hipGetLastError();
}

hipError_t LaunchWhere(DType dtype, const uint8_t* cond, const TensorShape& cond_shape, const void* x,
                       const TensorShape& x_shape, const void* y, const TensorShape& y_shape, void* out,
                       const TensorShape& out_shape, hipStream_t stream) {
  IndexMap<3> map;
  if (out_shape.rank > kMaxRank) return hipErrorInvalidValue;
  SetOutputDims(&map, out_shape);
  if (!SetBroadcastStrides(&map, 0, cond_shape, out_shape) || !SetBroadcastStrides(&map, 1, x_shape, out_shape) ||
      !SetBroadcastStrides(&map, 2, y_shape, out_shape)) {
    return hipErrorInvalidValue;
  }
  const int64_t count = out_shape.ElementCount();
  if (count == 0) return hipSuccess;
  CollapseIndexMap(&map);
  hipError_t status = hipErrorInvalidValue;
  DispatchBySize(DTypeSize(dtype), [&](auto tag) {
    using E = decltype(tag);
    WhereKernel<E><<<BlocksFor(count), kBlockSize, 0, stream>>>(cond, static_cast<const E*>(x),
                                                                 static_cast<const E*>(y), static_cast<E*>(out),
                                                                 count, map);
    status = hipGetLastError();
  });
  return status;
}

hipError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* out, int64_t count, UnaryParams params,
                       hipStream_t stream) {
  if (count < 0) return hipErrorInvalidValue;
  if (count == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) { status = DispatchUnary<decltype(tag)>(op, x, out, count, params, stream); });
  return status;
}

hipError_t LaunchCast(DType from, DType to, const void* x, void* out, int64_t count, hipStream_t stream) {
  if (count < 0) return hipErrorInvalidValue;
  if (count == 0) return hipSuccess;
  switch (from) {
    case DType::kFloat32: return DispatchCastTo<DType::kFloat32>(to, x, out, count, stream);
    case DType::kFloat16: return DispatchCastTo<DType::kFloat16>(to, x, out, count, stream);
    case DType::kInt32: return DispatchCastTo<DType::kInt32>(to, x, out, count, stream);
    case DType::kInt64: return DispatchCastTo<DType::kInt64>(to, x, out, count, stream);
    case DType::kBool: return DispatchCastTo<DType::kBool>(to, x, out, count, stream);
    case DType::kInt8: return DispatchCastTo<DType::kInt8>(to, x, out, count, stream);
    case DType::kUint8: return DispatchCastTo<DType::kUint8>(to, x, out, count, stream);
    default: return hipErrorInvalidValue;
  }
}

hipError_t LaunchElementwiseF32(ElementwiseOp op, const float* a, const float* b, float* out, size_t count,
                                hipStream_t stream) {
  TensorShape shape;
  shape.rank = 1;
  shape.dims[0] = static_cast<int64_t>(count);
  if (op == ElementwiseOp::kRelu) return LaunchUnary(UnaryOp::kRelu, DType::kFloat32, a, out, shape.dims[0], {}, stream);
  if (op != ElementwiseOp::kAdd && op != ElementwiseOp::kMul) return hipErrorInvalidValue;
  return LaunchBinary(LegacyOpMap::Binary(op), DType::kFloat32, a, shape, b, shape, out, shape, stream);
}

}  // namespace switchyard::kernels
