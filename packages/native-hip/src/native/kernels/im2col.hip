// im2col: the B operand of a convolution run as one GEMM (plan/conv_gemm.cc). At batch 1 the
// library convolutions cover a [k, oh*ow] output with few thread blocks (ResNet-50's 14x14 and 7x7
// layers); as a GEMM the BLAS library's split-K kernels fill the GPU instead.
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// One thread per (image, channel, output pixel); it writes that pixel's kh*kw taps, each to its own
// col row, so consecutive threads write consecutive addresses of every row.
template <typename T>
__global__ void Im2ColKernel(const T* __restrict__ x, T* __restrict__ col, Im2ColShape s, uint32_t total) {
  const uint32_t pixels = static_cast<uint32_t>(s.oh) * static_cast<uint32_t>(s.ow);
  const uint32_t taps = static_cast<uint32_t>(s.kh) * static_cast<uint32_t>(s.kw);
  const uint32_t step = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
    const uint32_t p = i % pixels;
    const uint32_t plane = i / pixels;  // ni * c + ci
    const int oy = static_cast<int>(p / static_cast<uint32_t>(s.ow));
    const int ox = static_cast<int>(p % static_cast<uint32_t>(s.ow));
    const T* src = x + static_cast<size_t>(plane) * s.h * s.w;
    T* dst = col + static_cast<size_t>(plane) * taps * pixels + p;
    const int y0 = oy * s.stride_h - s.pad_top;
    const int x0 = ox * s.stride_w - s.pad_left;
    for (int ky = 0; ky < s.kh; ++ky) {
      const int iy = y0 + ky * s.dilation_h;
      const bool row_in = iy >= 0 && iy < s.h;
      for (int kx = 0; kx < s.kw; ++kx) {
        const int ix = x0 + kx * s.dilation_w;
        *dst = row_in && ix >= 0 && ix < s.w ? src[iy * s.w + ix] : FromFloat<T>(0.0f);
        dst += pixels;
      }
    }
  }
}

}  // namespace

hipError_t LaunchIm2Col(DType dtype, const void* x, const Im2ColShape& s, void* col, hipStream_t stream) {
  if (s.n < 0 || s.c < 0 || s.h < 0 || s.w < 0 || s.kh < 1 || s.kw < 1 || s.stride_h < 1 || s.stride_w < 1 || s.dilation_h < 1 ||
      s.dilation_w < 1 || s.oh < 0 || s.ow < 0 || s.pad_top < 0 || s.pad_left < 0) {
    return hipErrorInvalidValue;
  }
  const int64_t planes = int64_t{s.n} * s.c;
  const int64_t total = planes * s.oh * s.ow;
  const int64_t col_count = total * s.kh * s.kw;
  if (planes * s.h * s.w >= (int64_t{1} << 31) || col_count >= (int64_t{1} << 31)) return hipErrorInvalidValue;
  if (total == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    Im2ColKernel<T><<<BlocksFor(total), kBlockSize, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(col), s,
                                                                 static_cast<uint32_t>(total));
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
