// Data movement: Gather, Concat, a strided copy (Slice, Transpose, Expand), a tiled transpose of
// the last two dims, and Pad. These move bits, so kernels are instantiated per element size, not per
// dtype; where alignment allows, runs of elements move as wider words (up to 16 bytes).
#include <algorithm>
#include <initializer_list>

#include "device_common.h"

namespace switchyard::kernels {
namespace {

// The widest word (16, 8, 4, 2 or 1 bytes) dividing every given byte count and address.
inline size_t WidestWord(std::initializer_list<uint64_t> values) {
  uint64_t bits = 16;  // caps the answer at 16
  for (uint64_t v : values) bits |= v;
  return static_cast<size_t>(bits & (~bits + 1));  // lowest set bit
}

// ---- Gather: out[o, k, j] = data[o, wrap(indices[k]), j], moved in words of `inner` chunks

template <typename E, typename Index>
__global__ void GatherKernel(const E* __restrict__ data, const Index* __restrict__ indices, E* __restrict__ out,
                             int64_t axis_dim, int64_t index_count, int64_t inner, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t j = i % inner;
    const int64_t t = i / inner;
    const int64_t k = t % index_count;
    const int64_t o = t / index_count;
    int64_t index = static_cast<int64_t>(indices[k]);
    if (index < 0) index += axis_dim;
    if (index < 0 || index >= axis_dim) {
      out[i] = E{};  // out of range: zeros (documented in launch.h)
    } else {
      out[i] = data[(o * axis_dim + index) * inner + j];
    }
  }
}

// ---- Concat: blockIdx.y picks the input of this launch's batch

constexpr int kConcatBatch = 16;

struct ConcatBatch {
  const void* inputs[kConcatBatch];
  int64_t widths[kConcatBatch];   // words per outer row of each input
  int64_t offsets[kConcatBatch];  // word offset of each input within an output row
};

template <typename E>
__global__ void ConcatKernel(ConcatBatch batch, E* __restrict__ out, int64_t outer, int64_t out_width) {
  const E* in = static_cast<const E*>(batch.inputs[blockIdx.y]);
  const int64_t width = batch.widths[blockIdx.y];
  const int64_t offset = batch.offsets[blockIdx.y];
  const int64_t count = outer * width;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t row = i / width;
    out[row * out_width + offset + (i - row * width)] = in[i];
  }
}

// ---- strided copy: out[i] = x[offset + sum(coord_d * stride_d)]

template <typename E>
__global__ void StridedCopyKernel(const E* __restrict__ x, E* __restrict__ out, int64_t count, IndexMap<1> map) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    int64_t offset[1];
    OperandOffsets(map, i, offset);
    out[i] = x[offset[0]];
  }
}

template <typename E>
__global__ void StridedCopyKernel32(const E* __restrict__ x, E* __restrict__ out, uint32_t count, IndexMap<1> map) {
  const uint32_t step = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
    uint32_t offset[1];
    OperandOffsets32(map, i, offset);
    out[i] = x[offset[0]];
  }
}

// ---- tiled transpose of [batch, rows, cols] -> [batch, cols, rows] through shared memory

constexpr int kTile = 32;       // tile edge in elements (a layout choice, unrelated to warp size)
constexpr int kTileRows = 8;    // block is kTile x kTileRows threads; each moves kTile/kTileRows elements

template <typename E>
__global__ void TransposeTiledKernel(const E* __restrict__ x, E* __restrict__ out, int64_t batch, int64_t rows,
                                     int64_t cols) {
  __shared__ E tile[kTile][kTile + 1];  // +1 column: column reads hit distinct banks
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    const E* src = x + b * rows * cols;
    E* dst = out + b * rows * cols;
    for (int r = threadIdx.y; r < kTile; r += kTileRows) {
      const int64_t row = row0 + r, col = col0 + threadIdx.x;
      if (row < rows && col < cols) tile[r][threadIdx.x] = src[row * cols + col];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kTileRows) {
      const int64_t out_row = col0 + r, out_col = row0 + threadIdx.x;  // out is [cols, rows]
      if (out_row < cols && out_col < rows) dst[out_row * rows + out_col] = tile[threadIdx.x][r];
    }
    __syncthreads();
  }
}

// A narrow output row (NCHW -> NHWC of an image batch: 3 channels): the tiled kernel would leave all but
// `rows` threads of each warp idle when writing (ResNet-50's input at batch 32: 0.15 ms on an H100, ten
// times its memory traffic). One thread per output row instead: for each source row the threads of a warp
// read consecutive elements, and together they write one contiguous span.
constexpr int64_t kNarrowRows = 8;

template <typename E>
__global__ void TransposeNarrowKernel(const E* __restrict__ x, E* __restrict__ out, int64_t batch, int64_t rows,
                                      int64_t cols) {
  const int64_t total = batch * cols;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t b = i / cols, col = i - b * cols;
    const E* src = x + b * rows * cols + col;
    E* dst = out + i * rows;
    for (int64_t r = 0; r < rows; ++r) dst[r] = src[r * cols];
  }
}

// ---- Pad

struct PadMap {
  int rank;
  int64_t out_dims[kMaxRank];
  int64_t in_dims[kMaxRank];
  int64_t in_strides[kMaxRank];
  int64_t pads_begin[kMaxRank];
};

// Maps a coordinate outside [0, dim) back inside; false for constant mode (use the value).
__device__ __forceinline__ bool PadSource(PadMode mode, int64_t c, int64_t dim, int64_t* source) {
  if (c >= 0 && c < dim) {
    *source = c;
    return true;
  }
  if (mode == PadMode::kConstant) return false;
  if (mode == PadMode::kEdge || dim == 1) {
    *source = c < 0 ? 0 : dim - 1;
    return true;
  }
  // Reflect (the edge itself is not repeated): period 2 * (dim - 1); folds any distance.
  const int64_t period = 2 * (dim - 1);
  int64_t r = c % period;
  if (r < 0) r += period;
  *source = r < dim ? r : period - r;
  return true;
}

template <typename E>
__global__ void PadKernel(const E* __restrict__ x, E* __restrict__ out, int64_t count, PadMap map, PadMode mode,
                          E value) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    int64_t rest = i, offset = 0;
    bool inside = true;
#pragma unroll
    for (int d = kMaxRank - 1; d >= 0; --d) {
      if (d < map.rank) {
        const int64_t coord = rest % map.out_dims[d];
        rest /= map.out_dims[d];
        int64_t source = 0;
        if (PadSource(mode, coord - map.pads_begin[d], map.in_dims[d], &source)) {
          offset += source * map.in_strides[d];
        } else {
          inside = false;
        }
      }
    }
    out[i] = inside ? x[offset] : value;
  }
}

// IEEE binary16 bits of a double (round to nearest even), for Pad's constant on the host.
uint16_t HalfBits(double value) {
  const float f = static_cast<float>(value);
  uint32_t x;
  __builtin_memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14..24
    const uint32_t half = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    const uint32_t rounded = half + ((remainder > halfway || (remainder == halfway && (half & 1))) ? 1 : 0);
    return static_cast<uint16_t>(sign | rounded);
  }
  const uint32_t rebased = abs - 0x38000000u;  // exponent bias 127 -> 15
  uint32_t half = rebased >> 13;
  const uint32_t remainder = rebased & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

// The bits of `value` as dtype, in an 8-byte word (little-endian: the low bytes are the element).
uint64_t ValueBits(DType dtype, double value) {
  uint64_t bits = 0;
  switch (dtype) {
    case DType::kFloat32: { const float f = static_cast<float>(value); __builtin_memcpy(&bits, &f, 4); break; }
    case DType::kFloat16: bits = HalfBits(value); break;
    case DType::kInt32: { const int32_t v = static_cast<int32_t>(value); __builtin_memcpy(&bits, &v, 4); break; }
    case DType::kInt64: { const int64_t v = static_cast<int64_t>(value); __builtin_memcpy(&bits, &v, 8); break; }
    case DType::kBool: bits = value != 0 ? 1 : 0; break;
    case DType::kInt8: { const int8_t v = static_cast<int8_t>(value); __builtin_memcpy(&bits, &v, 1); break; }
    case DType::kUint8: bits = static_cast<uint8_t>(value); break;
  }
  return bits;
}

hipError_t LaunchStridedMap(size_t element_bytes, const void* x, IndexMap<1> map, void* out, int64_t count,
                            hipStream_t stream) {
  CollapseIndexMap(&map);
  if (map.rank == 0 || (map.rank == 1 && map.strides[0][0] == 1)) {
    // A plain contiguous run (e.g. a slice of leading rows): one device-to-device copy.
    return hipMemcpyAsync(out, x, static_cast<size_t>(count) * element_bytes, hipMemcpyDeviceToDevice, stream);
  }
  // Runs along a last axis that is contiguous in x move as 16-byte words when every offset stays
  // 16-byte aligned (BERT's head split/merge: runs of 64 float16): 8x fewer index divisions and wide
  // loads. The map is rewritten in words.
  const int last = map.rank - 1;
  const size_t run_bytes = static_cast<size_t>(map.dims[last]) * element_bytes;
  bool aligned = map.strides[0][last] == 1 && element_bytes < 16 && run_bytes % 16 == 0 &&
                 reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  for (int d = 0; d < last && aligned; ++d) aligned = (map.strides[0][d] * static_cast<int64_t>(element_bytes)) % 16 == 0;
  if (aligned && count > 0) {
    const auto per_word = static_cast<int64_t>(16 / element_bytes);
    map.dims[last] /= per_word;
    for (int d = 0; d < last; ++d) map.strides[0][d] /= per_word;
    count /= per_word;
    element_bytes = 16;
  }
  hipError_t status = hipErrorInvalidValue;
  DispatchBySize<16>(element_bytes, [&](auto tag) {
    using E = decltype(tag);
    if (FitsIn32(map, count)) {
      StridedCopyKernel32<E><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const E*>(x), static_cast<E*>(out),
                                                                          static_cast<uint32_t>(count), map);
    } else {
      StridedCopyKernel<E><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const E*>(x), static_cast<E*>(out),
                                                                        count, map);
    }
    status = hipGetLastError();
  });
  return status;
}

}  // namespace

hipError_t LaunchGather(DType dtype, const void* data, int64_t outer, int64_t axis_dim, int64_t inner,
                        const void* indices, DType index_dtype, int64_t index_count, void* out, hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  if (bytes == 0 || outer < 0 || axis_dim < 0 || inner < 0 || index_count < 0) return hipErrorInvalidValue;
  if (index_dtype != DType::kInt32 && index_dtype != DType::kInt64) return hipErrorInvalidValue;
  const int64_t count = outer * index_count * inner;
  if (count == 0) return hipSuccess;
  // Move each gathered run of `inner` elements in the widest word that its size and addresses allow.
  const uint64_t run_bytes = static_cast<uint64_t>(inner) * bytes;
  const size_t word = WidestWord({run_bytes, reinterpret_cast<uint64_t>(data), reinterpret_cast<uint64_t>(out)});
  const int64_t words = static_cast<int64_t>(run_bytes / word);
  hipError_t status = hipErrorInvalidValue;
  DispatchBySize<16>(word, [&](auto tag) {
    using E = decltype(tag);
    const int64_t total = outer * index_count * words;
    if (index_dtype == DType::kInt64) {
      GatherKernel<E, int64_t><<<BlocksFor(total), kBlockSize, 0, stream>>>(
          static_cast<const E*>(data), static_cast<const int64_t*>(indices), static_cast<E*>(out), axis_dim, index_count,
          words, total);
    } else {
      GatherKernel<E, int32_t><<<BlocksFor(total), kBlockSize, 0, stream>>>(
          static_cast<const E*>(data), static_cast<const int32_t*>(indices), static_cast<E*>(out), axis_dim, index_count,
          words, total);
    }
    status = hipGetLastError();
  });
  return status;
}

hipError_t LaunchConcat(DType dtype, const void* const* inputs, const int64_t* axis_dims, int count, int64_t outer,
                        int64_t inner, void* out, hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  if (bytes == 0 || count < 0 || outer < 0 || inner < 0) return hipErrorInvalidValue;
  int64_t total_axis = 0;
  for (int i = 0; i < count; ++i) {
    if (axis_dims[i] < 0) return hipErrorInvalidValue;
    total_axis += axis_dims[i];
  }
  if (outer == 0 || inner == 0 || total_axis == 0) return hipSuccess;
  // One word size for the whole launch: it must divide every input's row bytes, offset and address.
  uint64_t bits = reinterpret_cast<uint64_t>(out) | static_cast<uint64_t>(inner) * bytes;
  for (int i = 0; i < count; ++i) bits |= reinterpret_cast<uint64_t>(inputs[i]);
  const size_t word = WidestWord({bits});
  const int64_t inner_words = static_cast<int64_t>(static_cast<uint64_t>(inner) * bytes / word);
  const int64_t out_width = total_axis * inner_words;
  hipError_t status = hipSuccess;
  int64_t offset = 0;
  for (int first = 0; first < count && status == hipSuccess; first += kConcatBatch) {
    ConcatBatch batch{};
    int used = 0;
    int64_t widest = 0;
    for (int i = first; i < count && i < first + kConcatBatch; ++i) {
      const int64_t width = axis_dims[i] * inner_words;
      if (width > 0) {
        batch.inputs[used] = inputs[i];
        batch.widths[used] = width;
        batch.offsets[used] = offset;
        ++used;
        if (width > widest) widest = width;
      }
      offset += width;
    }
    if (used == 0) continue;
    const dim3 grid(BlocksFor(outer * widest), static_cast<unsigned>(used));
    DispatchBySize<16>(word, [&](auto tag) {
      using E = decltype(tag);
      ConcatKernel<E><<<grid, kBlockSize, 0, stream>>>(batch, static_cast<E*>(out), outer, out_width);
      status = hipGetLastError();
    });
  }
  return status;
}

hipError_t LaunchStridedCopy(DType dtype, const void* x, int64_t offset, const int64_t* x_strides, void* out,
                             const TensorShape& out_shape, hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  if (bytes == 0 || out_shape.rank < 0 || out_shape.rank > kMaxRank) return hipErrorInvalidValue;
  const int64_t count = out_shape.ElementCount();
  if (count == 0) return hipSuccess;
  IndexMap<1> map;
  SetOutputDims(&map, out_shape);
  for (int d = 0; d < out_shape.rank; ++d) map.strides[0][d] = x_strides[d];
  return LaunchStridedMap(bytes, static_cast<const char*>(x) + offset * static_cast<int64_t>(bytes), map, out, count,
                          stream);
}

hipError_t LaunchSlice(DType dtype, const void* x, const TensorShape& x_shape, const int64_t* starts,
                       const int64_t* steps, void* out, const TensorShape& out_shape, hipStream_t stream) {
  if (x_shape.rank != out_shape.rank || x_shape.rank > kMaxRank) return hipErrorInvalidValue;
  int64_t strides[kMaxRank];
  int64_t stride = 1, offset = 0;
  for (int d = x_shape.rank - 1; d >= 0; --d) {
    if (steps[d] == 0) return hipErrorInvalidValue;
    if (out_shape.dims[d] > 0) {
      const int64_t last = starts[d] + (out_shape.dims[d] - 1) * steps[d];
      if (starts[d] < 0 || starts[d] >= x_shape.dims[d] || last < 0 || last >= x_shape.dims[d]) return hipErrorInvalidValue;
    }
    strides[d] = stride * steps[d];
    offset += starts[d] * stride;
    stride *= x_shape.dims[d];
  }
  if (out_shape.ElementCount() == 0) return hipSuccess;
  return LaunchStridedCopy(dtype, x, offset, strides, out, out_shape, stream);
}

hipError_t LaunchTranspose(DType dtype, const void* x, const TensorShape& x_shape, const int* perm, void* out,
                           hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  const int rank = x_shape.rank;
  if (bytes == 0 || rank < 0 || rank > kMaxRank) return hipErrorInvalidValue;
  int64_t x_strides[kMaxRank];
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    x_strides[d] = stride;
    stride *= x_shape.dims[d];
  }
  bool seen[kMaxRank] = {};
  IndexMap<1> map;
  map.rank = rank;
  for (int d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]]) return hipErrorInvalidValue;
    seen[perm[d]] = true;
    map.dims[d] = x_shape.dims[perm[d]];
    map.strides[0][d] = x_strides[perm[d]];
  }
  const int64_t count = x_shape.ElementCount();
  if (count == 0) return hipSuccess;
  CollapseIndexMap(&map);
  // After collapsing, a batched swap of the last two dims reads as out [B, C, R] over x [B, R, C]:
  // strides (R*C, 1, C). That case goes through shared-memory tiles so reads and writes coalesce.
  const int r = map.rank;
  if (r >= 2 && r <= 3 && map.strides[0][r - 2] == 1 && map.strides[0][r - 1] == map.dims[r - 2] &&
      (r == 2 || map.strides[0][0] == map.dims[1] * map.dims[2])) {
    const int64_t batch = r == 3 ? map.dims[0] : 1;
    const int64_t rows = map.dims[r - 1], cols = map.dims[r - 2];  // x is [batch, rows, cols]
    if (rows <= kNarrowRows) {
      constexpr int kThreads = 256;
      const int64_t blocks = std::min<int64_t>((batch * cols + kThreads - 1) / kThreads, int64_t{1} << 20);
      hipError_t status = hipErrorInvalidValue;
      DispatchBySize(bytes, [&](auto tag) {
        using E = decltype(tag);
        TransposeNarrowKernel<E><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(static_cast<const E*>(x),
                                                                                        static_cast<E*>(out), batch, rows, cols);
        status = hipGetLastError();
      });
      return status;
    }
    const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
    if (row_tiles <= 65535 && col_tiles <= 2147483647) {
      const dim3 grid(static_cast<unsigned>(col_tiles), static_cast<unsigned>(row_tiles),
                      static_cast<unsigned>(batch < 65535 ? batch : 65535));
      hipError_t status = hipErrorInvalidValue;
      DispatchBySize(bytes, [&](auto tag) {
        using E = decltype(tag);
        TransposeTiledKernel<E><<<grid, dim3(kTile, kTileRows), 0, stream>>>(static_cast<const E*>(x),
                                                                             static_cast<E*>(out), batch, rows, cols);
        status = hipGetLastError();
      });
      return status;
    }
  }
  return LaunchStridedMap(bytes, x, map, out, count, stream);
}

hipError_t LaunchExpand(DType dtype, const void* x, const TensorShape& x_shape, void* out,
                        const TensorShape& out_shape, hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  if (bytes == 0 || out_shape.rank > kMaxRank) return hipErrorInvalidValue;
  IndexMap<1> map;
  SetOutputDims(&map, out_shape);
  if (!SetBroadcastStrides(&map, 0, x_shape, out_shape)) return hipErrorInvalidValue;
  const int64_t count = out_shape.ElementCount();
  if (count == 0) return hipSuccess;
  return LaunchStridedMap(bytes, x, map, out, count, stream);
}

hipError_t LaunchPad(DType dtype, const void* x, const TensorShape& x_shape, const int64_t* pads_begin, void* out,
                     const TensorShape& out_shape, PadMode mode, double value, hipStream_t stream) {
  const size_t bytes = DTypeSize(dtype);
  if (bytes == 0 || x_shape.rank != out_shape.rank || x_shape.rank > kMaxRank) return hipErrorInvalidValue;
  PadMap map{};
  map.rank = x_shape.rank;
  int64_t stride = 1;
  for (int d = x_shape.rank - 1; d >= 0; --d) {
    map.out_dims[d] = out_shape.dims[d];
    map.in_dims[d] = x_shape.dims[d];
    map.in_strides[d] = stride;
    map.pads_begin[d] = pads_begin[d];
    stride *= x_shape.dims[d];
    // Edge and reflect need a source element on each padded dim.
    if (mode != PadMode::kConstant && x_shape.dims[d] == 0 && out_shape.dims[d] > 0) return hipErrorInvalidValue;
  }
  const int64_t count = out_shape.ElementCount();
  if (count == 0) return hipSuccess;
  const uint64_t bits = ValueBits(dtype, value);
  hipError_t status = hipErrorInvalidValue;
  DispatchBySize(bytes, [&](auto tag) {
    using E = decltype(tag);
    E element{};
    __builtin_memcpy(&element, &bits, sizeof(E));
    PadKernel<E><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const E*>(x), static_cast<E*>(out), count,
                                                               map, mode, element);
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
