// ONNX Resize over the last two axes (NCHW feature maps): nearest and bilinear, with the coordinate
// transforms exporters write (half_pixel, asymmetric, align_corners, pytorch_half_pixel,
// tf_half_pixel_for_nn) and the four nearest rounding modes. One thread per output element; the
// source coordinates are recomputed per element (a few flops against the memory traffic).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// The input coordinate that output coordinate `out` maps to along one axis.
__device__ __forceinline__ float SourceCoordinate(ResizeTransform transform, int64_t out, float scale, int64_t in_len,
                                                  int64_t out_len) {
  const float o = static_cast<float>(out);
  switch (transform) {
    case ResizeTransform::kHalfPixel: return (o + 0.5f) / scale - 0.5f;
    case ResizeTransform::kAsymmetric: return o / scale;
    case ResizeTransform::kAlignCorners: {
      // ONNX's reference divides by the scaled length (in * scale), not the rounded output length:
      // they differ when in * scale is not whole (7 * 1.5 = 10.5 against 10 outputs).
      const float resized = static_cast<float>(in_len) * scale;
      (void)out_len;
      return resized == 1.0f ? 0.0f : o * static_cast<float>(in_len - 1) / (resized - 1.0f);
    }
    case ResizeTransform::kPytorchHalfPixel: return out_len > 1 ? (o + 0.5f) / scale - 0.5f : 0.0f;
    case ResizeTransform::kTfHalfPixelForNn: return (o + 0.5f) / scale;
  }
  return o / scale;
}

__device__ __forceinline__ int64_t NearestIndex(ResizeNearest mode, float x, int64_t in_len) {
  float r;
  switch (mode) {
    case ResizeNearest::kRoundPreferFloor: r = (x - floorf(x) == 0.5f) ? floorf(x) : roundf(x); break;
    case ResizeNearest::kRoundPreferCeil: r = (x - floorf(x) == 0.5f) ? ceilf(x) : roundf(x); break;
    case ResizeNearest::kFloor: r = floorf(x); break;
    default: r = ceilf(x); break;
  }
  const int64_t i = static_cast<int64_t>(r);
  return i < 0 ? 0 : (i >= in_len ? in_len - 1 : i);
}

// Two neighbours and the weight of the second, edge-clamped (ONNX linear mode).
struct LinearTaps {
  int64_t lo, hi;
  float w;
};
__device__ __forceinline__ LinearTaps LinearAxis(float x, int64_t in_len) {
  const float limit = static_cast<float>(in_len - 1);
  x = x < 0.0f ? 0.0f : (x > limit ? limit : x);
  const int64_t lo = static_cast<int64_t>(floorf(x));
  const int64_t hi = lo + 1 < in_len ? lo + 1 : in_len - 1;
  return {lo, hi, x - static_cast<float>(lo)};
}

template <typename T>
__global__ void ResizeKernel(const T* __restrict__ x, T* __restrict__ out, ResizeShape s, int64_t count) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t ox = i % s.out_w;
    const int64_t oy = (i / s.out_w) % s.out_h;
    const int64_t plane = i / (s.out_w * s.out_h);
    const T* src = x + plane * s.in_h * s.in_w;
    const float sy = SourceCoordinate(s.transform, oy, s.scale_h, s.in_h, s.out_h);
    const float sx = SourceCoordinate(s.transform, ox, s.scale_w, s.in_w, s.out_w);
    if (s.mode == ResizeMode::kNearest) {
      out[i] = src[NearestIndex(s.nearest, sy, s.in_h) * s.in_w + NearestIndex(s.nearest, sx, s.in_w)];
      continue;
    }
    const LinearTaps ty = LinearAxis(sy, s.in_h);
    const LinearTaps tx = LinearAxis(sx, s.in_w);
    const float top = ToFloat(src[ty.lo * s.in_w + tx.lo]) * (1.0f - tx.w) + ToFloat(src[ty.lo * s.in_w + tx.hi]) * tx.w;
    const float bottom = ToFloat(src[ty.hi * s.in_w + tx.lo]) * (1.0f - tx.w) + ToFloat(src[ty.hi * s.in_w + tx.hi]) * tx.w;
    out[i] = FromFloat<T>(top * (1.0f - ty.w) + bottom * ty.w);
  }
}

}  // namespace

hipError_t LaunchResize(DType dtype, const void* x, void* out, const ResizeShape& shape, hipStream_t stream) {
  if (shape.planes < 0 || shape.in_h <= 0 || shape.in_w <= 0 || shape.out_h < 0 || shape.out_w < 0) return hipErrorInvalidValue;
  if (!(shape.scale_h > 0.0f) || !(shape.scale_w > 0.0f)) return hipErrorInvalidValue;
  const int64_t count = shape.planes * shape.out_h * shape.out_w;
  if (count == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    ResizeKernel<T><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(out), shape, count);
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
