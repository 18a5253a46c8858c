// The operand split of "3xTF32" products (the MatMulSplitTf32 step): x = hi + lo + (a residue below
// about 2^-22 |x|), hi and lo each exactly representable in TF32 (10 explicit mantissa bits), so that
// TF32 tensor cores multiply the parts without rounding them. hi(A)lo(B) + lo(A)hi(B) + hi(A)hi(B) is
// then A.B to about fp32's accuracy, as ONE GEMM over three times the inner dimension:
// [hi | lo | hi] (A, side by side) against [lo ; hi ; hi] (B, stacked; the EP splits constant
// weights on the host, plan/split-tf32.ts).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// Round to nearest, ties to even, at TF32's precision; inf and NaN pass unchanged.
__device__ __forceinline__ float RoundTf32(float x) {
  uint32_t u = __float_as_uint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  u += 0x0fffu + ((u >> 13) & 1u);
  return __uint_as_float(u & 0xffffe000u);
}

// One thread per element; 32-bit indices (the launch checks the sizes fit).
__global__ void SplitTf32Kernel(const float* __restrict__ src, uint32_t rows, uint32_t cols, uint32_t ld_src, float* __restrict__ dst,
                                uint32_t ld_dst, uint32_t part_stride, int lo_part) {
  const uint32_t total = rows * cols;
  const uint32_t step = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
    const uint32_t r = i / cols, c = i % cols;
    const float x = src[r * ld_src + c];
    const float hi = RoundTf32(x);
    const float lo = RoundTf32(x - hi);
    float* out = dst + r * ld_dst + c;
#pragma unroll
    for (int p = 0; p < 3; ++p) out[p * part_stride] = p == lo_part ? lo : hi;
  }
}

}  // namespace

hipError_t LaunchSplitTf32(const float* src, int64_t rows, int64_t cols, int64_t ld_src, float* dst, int64_t ld_dst,
                           int64_t part_stride, int lo_part, hipStream_t stream) {
  if (rows < 0 || cols < 0 || ld_src < cols || lo_part < 0 || lo_part > 2) return hipErrorInvalidValue;
  if (rows == 0 || cols == 0) return hipSuccess;
  const int64_t limit = int64_t{1} << 31;
  if (rows * ld_src >= limit || rows * ld_dst + 2 * part_stride >= limit) return hipErrorInvalidValue;
  SplitTf32Kernel<<<BlocksFor(rows * cols), kBlockSize, 0, stream>>>(
      src, static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), static_cast<uint32_t>(ld_src), dst, static_cast<uint32_t>(ld_dst),
      static_cast<uint32_t>(part_stride), lo_part);
  return hipGetLastError();
}

}  // namespace switchyard::kernels
