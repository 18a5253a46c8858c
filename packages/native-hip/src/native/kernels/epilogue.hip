// Fused epilogues run after GEMM or convolution: bias along the channel (or last) axis, an
// activation, and a residual add before or after it -- one pass over the output instead of three.
// The activation is a run-time value: the branch is uniform across the grid, and one kernel per
// dtype keeps compile time down.
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// x and residual carry no __restrict__: out may be either of them (in place).
template <typename T, bool kInnerIsOne>
__global__ void BiasActivationKernel(const T* x, const T* __restrict__ bias, const T* residual, T* out, int64_t count,
                                     int64_t channels, int64_t inner, UnaryOp activation, UnaryParams params,
                                     bool residual_first) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    float v = ToFloat(x[i]);
    if (bias != nullptr) {
      // GEMM outputs ([M, N], inner 1) need one division per element, NCHW outputs two.
      const int64_t c = kInnerIsOne ? i % channels : (i / inner) % channels;
      v += ToFloat(bias[c]);
    }
    if (residual != nullptr && residual_first) v += ToFloat(residual[i]);
    v = ApplyUnary(activation, v, params);
    if (residual != nullptr && !residual_first) v += ToFloat(residual[i]);
    out[i] = FromFloat<T>(v);
  }
}

}  // namespace

hipError_t LaunchBiasActivation(DType dtype, const void* x, const void* bias, const void* residual, void* out,
                                int64_t outer, int64_t channels, int64_t inner, UnaryOp activation,
                                UnaryParams params, ResidualPlacement placement, hipStream_t stream) {
  if (outer < 0 || channels < 0 || inner < 0) return hipErrorInvalidValue;
  if (static_cast<int>(activation) < 0 || activation > UnaryOp::kReciprocal) return hipErrorInvalidValue;
  const int64_t count = outer * channels * inner;
  if (count == 0) return hipSuccess;
  const bool residual_first = placement == ResidualPlacement::kBeforeActivation;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* tx = static_cast<const T*>(x);
    const T* tb = static_cast<const T*>(bias);
    const T* tr = static_cast<const T*>(residual);
    T* tout = static_cast<T*>(out);
    if (inner == 1) {
      BiasActivationKernel<T, true><<<BlocksFor(count), kBlockSize, 0, stream>>>(tx, tb, tr, tout, count, channels, inner,
                                                                                 activation, params, residual_first);
    } else {
      BiasActivationKernel<T, false><<<BlocksFor(count), kBlockSize, 0, stream>>>(tx, tb, tr, tout, count, channels,
                                                                                  inner, activation, params, residual_first);
    }
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
