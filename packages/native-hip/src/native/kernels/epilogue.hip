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

// Four consecutive elements as one access: float4, or four halves in 8 bytes.
template <typename T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

// GEMM outputs ([M, N], N a multiple of 4, every pointer 4-element aligned): a thread takes four
// neighbours of one row, so one bias lookup (one division) and one vector access each serve four
// elements. BERT-base b32's [4096, 3072] bias + GELU: see LaunchBiasActivation.
template <typename T>
__global__ void BiasActivationQuadsKernel(const Quad<T>* x, const Quad<T>* __restrict__ bias, const Quad<T>* residual,
                                          Quad<T>* out, uint32_t quads, uint32_t channel_quads, UnaryOp activation,
                                          UnaryParams params, bool residual_first) {
  const uint32_t step = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < quads; i += step) {
    const Quad<T> a = x[i];
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = ToFloat(a.v[e]);
    if (bias != nullptr) {
      const Quad<T> b = bias[i % channel_quads];
#pragma unroll
      for (int e = 0; e < 4; ++e) v[e] += ToFloat(b.v[e]);
    }
    Quad<T> r{};
    if (residual != nullptr) r = residual[i];
    Quad<T> o;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float y = v[e];
      if (residual != nullptr && residual_first) y += ToFloat(r.v[e]);
      y = ApplyUnary(activation, y, params);
      if (residual != nullptr && !residual_first) y += ToFloat(r.v[e]);
      o.v[e] = FromFloat<T>(y);
    }
    out[i] = o;
  }
}

}  // namespace

hipError_t LaunchBiasActivation(DType dtype, const void* x, const void* bias, const void* residual, void* out,
                                int64_t outer, int64_t channels, int64_t inner, UnaryOp activation,
                                UnaryParams params, ResidualPlacement placement, hipStream_t stream) {
  if (outer < 0 || channels < 0 || inner < 0) return hipErrorInvalidValue;
  if (static_cast<int>(activation) < 0 || activation > UnaryOp::kSoftsign) return hipErrorInvalidValue;
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
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % sizeof(Quad<T>) == 0; };
    if (inner == 1 && channels % 4 == 0 && count < (int64_t{1} << 31) && aligned(x) && aligned(out) &&
        (bias == nullptr || aligned(bias)) && (residual == nullptr || aligned(residual))) {
      const auto quads = static_cast<uint32_t>(count / 4);
      BiasActivationQuadsKernel<T><<<BlocksFor(quads), kBlockSize, 0, stream>>>(
          reinterpret_cast<const Quad<T>*>(tx), reinterpret_cast<const Quad<T>*>(tb), reinterpret_cast<const Quad<T>*>(tr),
          reinterpret_cast<Quad<T>*>(tout), quads, static_cast<uint32_t>(channels / 4), activation, params, residual_first);
    } else if (count < (int64_t{1} << 31)) {
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
