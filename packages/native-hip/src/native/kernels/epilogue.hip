// Fused epilogues run after GEMM or convolution: bias along the channel (or last) axis, an
// activation, and a residual add before or after it -- one pass over the output instead of three.
// The activation is a run-time value: the branch is uniform across the grid, and one kernel per
// dtype keeps compile time down.
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// x and residual carry no __restrict__: out may be either of them (in place).
// Index: int64_t, or uint32_t when the tensor has fewer than 2^31 elements (64-bit division is a long
// software sequence on GPUs; the channel index costs one or two per element).
template <typename T, bool kInnerIsOne, typename Index>
__global__ void BiasActivationKernel(const T* x, const T* __restrict__ bias, const T* residual, T* out, Index count,
                                     Index channels, Index inner, UnaryOp activation, UnaryParams params,
                                     bool residual_first) {
  const Index step = static_cast<Index>(blockDim.x) * gridDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    float v = ToFloat(x[i]);
    if (bias != nullptr) {
      // GEMM outputs ([M, N], inner 1) need one division per element, NCHW outputs two.
      const Index c = kInnerIsOne ? i % channels : (i / inner) % channels;
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
    const unsigned blocks = BlocksFor(count);
    if (count < (int64_t{1} << 31)) {
      const auto n = static_cast<uint32_t>(count), c = static_cast<uint32_t>(channels), in = static_cast<uint32_t>(inner);
      if (inner == 1) {
        BiasActivationKernel<T, true, uint32_t><<<blocks, kBlockSize, 0, stream>>>(tx, tb, tr, tout, n, c, in, activation, params,
                                                                                   residual_first);
      } else {
        BiasActivationKernel<T, false, uint32_t><<<blocks, kBlockSize, 0, stream>>>(tx, tb, tr, tout, n, c, in, activation, params,
                                                                                    residual_first);
      }
    } else if (inner == 1) {
      BiasActivationKernel<T, true, int64_t><<<blocks, kBlockSize, 0, stream>>>(tx, tb, tr, tout, count, channels, inner,
                                                                                activation, params, residual_first);
    } else {
      BiasActivationKernel<T, false, int64_t><<<blocks, kBlockSize, 0, stream>>>(tx, tb, tr, tout, count, channels, inner,
                                                                                 activation, params, residual_first);
    }
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
