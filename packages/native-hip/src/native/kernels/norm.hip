// Row-wise normalizations over the last axis: Softmax, LogSoftmax, RMSNormalization and LayerNormalization (with an
// optional fused residual add). One team per row -- a warp for short rows, the block for long ones --
// with float32 accumulation whatever the storage type. A LayerNormalization row of up to
// kMaxRowSlots elements per thread of the block is read once into registers (BERT's 768: 3 a thread).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// Three passes over the row (max, sum of exp, write); the row stays in L2 between them.
template <typename T, typename Team, bool kLog>
__global__ void SoftmaxKernel(const T* __restrict__ x, T* __restrict__ out, int64_t rows, int64_t cols) {
  __shared__ float scratch[32];
  Team team;
  for (int64_t row = team.first_row(); row < rows; row += team.row_stride()) {
    const T* p = x + row * cols;
    T* q = out + row * cols;
    float m = -INFINITY;
    for (int64_t c = team.lane(); c < cols; c += team.size()) m = CombineValues<Combine::kMax>(m, ToFloat(p[c]));
    m = team.template Reduce<Combine::kMax>(m, scratch);
    // A row of -inf has no finite maximum; shifting by 0 keeps exp() from producing inf - inf = NaN.
    const float shift = isfinite(m) ? m : 0.0f;
    float sum = 0.0f;
    for (int64_t c = team.lane(); c < cols; c += team.size()) sum += expf(ToFloat(p[c]) - shift);
    sum = team.template Reduce<Combine::kSum>(sum, scratch);
    if constexpr (kLog) {
      const float log_sum = logf(sum);
      for (int64_t c = team.lane(); c < cols; c += team.size()) q[c] = FromFloat<T>(ToFloat(p[c]) - shift - log_sum);
    } else {
      const float inv_sum = 1.0f / sum;
      for (int64_t c = team.lane(); c < cols; c += team.size()) q[c] = FromFloat<T>(expf(ToFloat(p[c]) - shift) * inv_sum);
    }
  }
}

// h = x (+ residual); mean and variance by two passes (no cancellation from E[h^2] - E[h]^2).
template <typename T, typename Team>
__global__ void LayerNormKernel(const T* __restrict__ x, const T* __restrict__ residual, const T* __restrict__ gamma,
                                const T* __restrict__ beta, T* __restrict__ out, T* __restrict__ sum_out,
                                float* __restrict__ mean_out, float* __restrict__ inv_std_out, int64_t rows,
                                int64_t cols, float epsilon) {
  __shared__ float scratch[32];
  Team team;
  for (int64_t row = team.first_row(); row < rows; row += team.row_stride()) {
    const int64_t base = row * cols;
    auto load = [&](int64_t c) {
      float h = ToFloat(x[base + c]);
      if (residual != nullptr) h += ToFloat(residual[base + c]);
      return h;
    };
    float sum = 0.0f;
    for (int64_t c = team.lane(); c < cols; c += team.size()) {
      const float h = load(c);
      if (sum_out != nullptr) sum_out[base + c] = FromFloat<T>(h);
      sum += h;
    }
    const float mean = team.template Reduce<Combine::kSum>(sum, scratch) / static_cast<float>(cols);
    float squares = 0.0f;
    for (int64_t c = team.lane(); c < cols; c += team.size()) {
      const float d = load(c) - mean;
      squares += d * d;
    }
    const float variance = team.template Reduce<Combine::kSum>(squares, scratch) / static_cast<float>(cols);
    const float inv_std = rsqrtf(variance + epsilon);
    for (int64_t c = team.lane(); c < cols; c += team.size()) {
      float y = (load(c) - mean) * inv_std * ToFloat(gamma[c]);
      if (beta != nullptr) y += ToFloat(beta[c]);
      out[base + c] = FromFloat<T>(y);
    }
    if (team.lane() == 0) {
      if (mean_out != nullptr) mean_out[row] = mean;
      if (inv_std_out != nullptr) inv_std_out[row] = inv_std;
    }
  }
}

// RMSNormalization: one pass for the mean square, one to write; the row stays in L2 between them.
template <typename T, typename Team>
__global__ void RmsNormKernel(const T* __restrict__ x, const T* __restrict__ scale, T* __restrict__ out, int64_t rows,
                              int64_t cols, float epsilon) {
  __shared__ float scratch[32];
  Team team;
  for (int64_t row = team.first_row(); row < rows; row += team.row_stride()) {
    const T* p = x + row * cols;
    T* q = out + row * cols;
    float squares = 0.0f;
    for (int64_t c = team.lane(); c < cols; c += team.size()) {
      const float v = ToFloat(p[c]);
      squares += v * v;
    }
    const float inv_rms = rsqrtf(team.template Reduce<Combine::kSum>(squares, scratch) / static_cast<float>(cols) + epsilon);
    for (int64_t c = team.lane(); c < cols; c += team.size()) q[c] = FromFloat<T>(ToFloat(p[c]) * inv_rms * ToFloat(scale[c]));
  }
}

// The block's row in registers: element c in thread c % blockDim.x, slot c / blockDim.x. One read of
// x (and the residual) instead of three passes' worth; 32-bit offsets within the row. On the H200, a
// [128, 768] row-set with a residual takes 2.3 us against the three-pass kernel's 3.3 (in a graph,
// where an empty launch takes 1.7).
constexpr int kMaxRowSlots = 8;

template <typename T, int kSlots>
__global__ void LayerNormBlockRowKernel(const T* __restrict__ x, const T* __restrict__ residual, const T* __restrict__ gamma,
                                        const T* __restrict__ beta, T* __restrict__ out, T* __restrict__ sum_out,
                                        float* __restrict__ mean_out, float* __restrict__ inv_std_out, int64_t rows,
                                        int cols, float epsilon) {
  __shared__ float scratch[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t base = row * cols;
    float h[kSlots];
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      const int c = threadIdx.x + j * blockDim.x;
      h[j] = 0.0f;
      if (c < cols) h[j] = residual != nullptr ? ToFloat(x[base + c]) + ToFloat(residual[base + c]) : ToFloat(x[base + c]);
      sum += h[j];
    }
    const float mean = BlockReduce<Combine::kSum>(sum, scratch) / static_cast<float>(cols);
    float squares = 0.0f;
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      const float d = h[j] - mean;
      if (threadIdx.x + j * blockDim.x < cols) squares += d * d;
    }
    const float inv_std = rsqrtf(BlockReduce<Combine::kSum>(squares, scratch) / static_cast<float>(cols) + epsilon);
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      const int c = threadIdx.x + j * blockDim.x;
      if (c >= cols) continue;
      if (sum_out != nullptr) sum_out[base + c] = FromFloat<T>(h[j]);
      float y = (h[j] - mean) * inv_std * ToFloat(gamma[c]);
      if (beta != nullptr) y += ToFloat(beta[c]);
      out[base + c] = FromFloat<T>(y);
    }
    if (threadIdx.x == 0) {
      if (mean_out != nullptr) mean_out[row] = mean;
      if (inv_std_out != nullptr) inv_std_out[row] = inv_std;
    }
  }
}

// Short rows (up to a few warps) take one warp each, several per block; long rows take a block.
template <typename Launch>
hipError_t LaunchRows(int64_t rows, int64_t cols, Launch&& launch) {
  const int warp = CurrentWarpSize();
  if (cols <= 4 * warp) {
    launch(WarpTeam{}, BlocksFor(rows, kBlockSize / warp));
  } else {
    launch(BlockTeam{}, BlocksFor(rows, 1));
  }
  return hipGetLastError();
}

}  // namespace

hipError_t LaunchSoftmax(DType dtype, const void* x, void* out, int64_t rows, int64_t cols, bool log,
                         hipStream_t stream) {
  if (rows < 0 || cols < 0) return hipErrorInvalidValue;
  if (rows == 0 || cols == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* tx = static_cast<const T*>(x);
    T* tout = static_cast<T*>(out);
    status = LaunchRows(rows, cols, [&](auto team, unsigned blocks) {
      using Team = decltype(team);
      if (log) {
        SoftmaxKernel<T, Team, true><<<blocks, kBlockSize, 0, stream>>>(tx, tout, rows, cols);
      } else {
        SoftmaxKernel<T, Team, false><<<blocks, kBlockSize, 0, stream>>>(tx, tout, rows, cols);
      }
    });
  });
  return status;
}

hipError_t LaunchLayerNorm(DType dtype, const void* x, const void* residual, const void* gamma, const void* beta,
                           void* out, void* sum_out, float* mean, float* inv_std, int64_t rows, int64_t cols,
                           float epsilon, hipStream_t stream) {
  if (rows < 0 || cols < 0 || gamma == nullptr) return hipErrorInvalidValue;
  if (rows == 0 || cols == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    const int warp = CurrentWarpSize();
    const int64_t slots = (cols + kBlockSize - 1) / kBlockSize;
    if (cols > 4 * warp && slots <= kMaxRowSlots) {
      auto launch = [&](auto kslots) {
        LayerNormBlockRowKernel<T, decltype(kslots)::value><<<BlocksFor(rows, 1), kBlockSize, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const T*>(residual), static_cast<const T*>(gamma),
            static_cast<const T*>(beta), static_cast<T*>(out), static_cast<T*>(sum_out), mean, inv_std, rows,
            static_cast<int>(cols), epsilon);
      };
      if (slots <= 2) launch(std::integral_constant<int, 2>{});
      else if (slots == 3) launch(std::integral_constant<int, 3>{});
      else if (slots <= 4) launch(std::integral_constant<int, 4>{});
      else launch(std::integral_constant<int, kMaxRowSlots>{});
      status = hipGetLastError();
      return;
    }
    status = LaunchRows(rows, cols, [&](auto team, unsigned blocks) {
      LayerNormKernel<T, decltype(team)><<<blocks, kBlockSize, 0, stream>>>(
          static_cast<const T*>(x), static_cast<const T*>(residual), static_cast<const T*>(gamma),
          static_cast<const T*>(beta), static_cast<T*>(out), static_cast<T*>(sum_out), mean, inv_std, rows, cols,
          epsilon);
    });
  });
  return status;
}

hipError_t LaunchRmsNorm(DType dtype, const void* x, const void* scale, void* out, int64_t rows, int64_t cols, float epsilon,
                         hipStream_t stream) {
  if (rows < 0 || cols < 0 || scale == nullptr) return hipErrorInvalidValue;
  if (rows == 0 || cols == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    status = LaunchRows(rows, cols, [&](auto team, unsigned blocks) {
      RmsNormKernel<T, decltype(team)><<<blocks, kBlockSize, 0, stream>>>(static_cast<const T*>(x), static_cast<const T*>(scale),
                                                                          static_cast<T*>(out), rows, cols, epsilon);
    });
  });
  return status;
}

}  // namespace switchyard::kernels
