// ONNX RotaryEmbedding (opset 23): one thread per element of x. An element among the first rot_dim
// features of its head vector is rotated with its partner (i and i + rot_dim/2, or 2i and 2i + 1
// when interleaved) by the angle of its position, read as cos/sin from the caches; the others are
// copied. A position id outside the caches writes zeros (a kernel cannot throw).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

template <typename T>
__global__ void RotaryKernel(const T* __restrict__ x, const T* __restrict__ cos_cache, const T* __restrict__ sin_cache,
                             const int64_t* __restrict__ positions, T* __restrict__ out, RotaryShape s, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  const int64_t half = s.rot_dim / 2;
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < count; n += step) {
    const int64_t d = n % s.head_size;
    if (d >= s.rot_dim) {
      out[n] = x[n];
      continue;
    }
    // [B, H, S, D] or [B, S, H, D] (3-D packed): the batch and position of element n.
    const int64_t rest = n / s.head_size;
    const int64_t pos_in_seq = s.packed ? (rest / s.heads) % s.seq : rest % s.seq;
    const int64_t b = rest / (s.heads * s.seq);
    int64_t row;
    if (positions != nullptr) {
      row = positions[(s.pos_batch == 1 ? 0 : b) * s.seq + pos_in_seq];
      if (row < 0 || row >= s.cache_rows) {
        out[n] = FromFloat<T>(0.0f);
        continue;
      }
    } else {
      row = (s.cache_batch == 1 ? 0 : b) * s.seq + pos_in_seq;
    }
    // This element's pair index i, and whether it is the first of the pair.
    const bool first = s.interleaved ? d % 2 == 0 : d < half;
    const int64_t i = s.interleaved ? d / 2 : (first ? d : d - half);
    const int64_t partner = s.interleaved ? (first ? n + 1 : n - 1) : (first ? n + half : n - half);
    const float c = ToFloat(cos_cache[row * half + i]);
    const float sn = ToFloat(sin_cache[row * half + i]);
    const float self = ToFloat(x[n]);
    const float other = ToFloat(x[partner]);
    out[n] = FromFloat<T>(first ? c * self - sn * other : sn * other + c * self);
  }
}

}  // namespace

hipError_t LaunchRotary(DType dtype, const void* x, const void* cos_cache, const void* sin_cache, const int64_t* positions, void* out,
                        const RotaryShape& s, hipStream_t stream) {
  if (s.batch < 0 || s.heads < 1 || s.seq < 0 || s.head_size < 1 || s.rot_dim < 0 || s.rot_dim % 2 != 0 || s.rot_dim > s.head_size) {
    return hipErrorInvalidValue;
  }
  const int64_t count = s.batch * s.heads * s.seq * s.head_size;
  if (count == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    RotaryKernel<T><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const T*>(x), static_cast<const T*>(cos_cache),
                                                                static_cast<const T*>(sin_cache), positions, static_cast<T*>(out), s, count);
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
