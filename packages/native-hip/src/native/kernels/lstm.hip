// ONNX LSTM on the GPU: one block per (batch row, direction) walks the sequence, keeping h and c in
// shared memory. Each time step: x_t is staged in shared memory, each warp computes whole gate rows
// (W·x_t + R·h + biases, lanes striding along the row so weight reads are coalesced, then a warp
// reduction), and the threads update c and h per hidden unit. The weights are re-read every step from
// L2; the recurrence allows no parallelism across time, and a batch row's steps never leave its block.
#include "device_common.h"

namespace switchyard::kernels {
namespace {

__device__ __forceinline__ float Sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

// T: X, the states and the outputs; Wt: W, R and the bias (float32 weights in a float16 plan keep the
// recurrence from compounding float16 rounding of the weights over the sequence).
template <typename T, typename Wt>
__global__ void LstmKernel(const T* __restrict__ x, const Wt* __restrict__ w, const Wt* __restrict__ r, const Wt* __restrict__ bias,
                           const T* __restrict__ h0, const T* __restrict__ c0, T* __restrict__ y, T* __restrict__ y_h,
                           T* __restrict__ y_c, LstmShape s) {
  extern __shared__ float shared[];
  const int64_t hidden = s.hidden, input = s.input, rows = 4 * s.hidden;
  const int64_t b = blockIdx.x, dir = blockIdx.y;
  float* h = shared;            // [hidden]
  float* c = h + hidden;        // [hidden]
  float* gates = c + hidden;    // [4 * hidden]
  float* xt = gates + rows;     // [input]
  const bool backwards = s.dirs == 2 ? dir == 1 : s.reverse;
  const Wt* wd = w + dir * rows * input;
  const Wt* rd = r + dir * rows * hidden;
  const Wt* bd = bias != nullptr ? bias + dir * 2 * rows : nullptr;
  const int64_t state = (dir * s.batch + b) * hidden;
  for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x) {
    h[j] = h0 != nullptr ? ToFloat(h0[state + j]) : 0.0f;
    c[j] = c0 != nullptr ? ToFloat(c0[state + j]) : 0.0f;
  }
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  for (int64_t step = 0; step < s.seq; ++step) {
    const int64_t t = backwards ? s.seq - 1 - step : step;
    const T* xrow = x + (t * s.batch + b) * input;
    for (int64_t k = threadIdx.x; k < input; k += blockDim.x) xt[k] = ToFloat(xrow[k]);
    __syncthreads();  // x_t staged, and the previous step's h written
    for (int64_t g = warp; g < rows; g += warps) {
      const Wt* wrow = wd + g * input;
      const Wt* rrow = rd + g * hidden;
      float acc = 0.0f;
      for (int64_t k = lane; k < input; k += warpSize) acc += ToFloat(wrow[k]) * xt[k];
      for (int64_t k = lane; k < hidden; k += warpSize) acc += ToFloat(rrow[k]) * h[k];
      acc = WarpReduce<Combine::kSum>(acc);
      if (lane == 0) gates[g] = acc + (bd != nullptr ? ToFloat(bd[g]) + ToFloat(bd[rows + g]) : 0.0f);
    }
    __syncthreads();  // every gate row done before h changes
    for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x) {
      const float i = Sigmoid(gates[j]);
      const float o = Sigmoid(gates[hidden + j]);
      const float f = Sigmoid(gates[2 * hidden + j]);
      const float cell = f * c[j] + i * tanhf(gates[3 * hidden + j]);
      const float out = o * tanhf(cell);
      c[j] = cell;
      h[j] = out;
      if (y != nullptr) y[((t * s.dirs + dir) * s.batch + b) * hidden + j] = FromFloat<T>(out);
    }
    // The next step's first barrier orders these writes before any read of h.
  }
  __syncthreads();
  for (int64_t j = threadIdx.x; j < hidden; j += blockDim.x) {
    if (y_h != nullptr) y_h[state + j] = FromFloat<T>(h[j]);
    if (y_c != nullptr) y_c[state + j] = FromFloat<T>(c[j]);
  }
}

}  // namespace

hipError_t LaunchLstm(DType dtype, DType weight_dtype, const void* x, const void* w, const void* r, const void* bias, const void* h0,
                      const void* c0, void* y, void* y_h, void* y_c, const LstmShape& s, hipStream_t stream) {
  if (s.seq < 0 || s.batch < 0 || s.input < 1 || s.hidden < 1 || (s.dirs != 1 && s.dirs != 2) || s.batch > 65535) return hipErrorInvalidValue;
  if (LstmSharedBytes(s) > 48 * 1024) return hipErrorInvalidValue;
  if (s.batch == 0) return hipSuccess;
  // A block of whole warps (BlockReduce-style code assumes it); 256 threads cover 4 * hidden gate rows
  // in 8 (NVIDIA) or 4 (AMD) warps.
  const dim3 grid(static_cast<unsigned>(s.batch), static_cast<unsigned>(s.dirs));
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    DispatchFloat(weight_dtype, [&](auto weight_tag) {
      using Wt = decltype(weight_tag);
      LstmKernel<T, Wt><<<grid, kBlockSize, LstmSharedBytes(s), stream>>>(
          static_cast<const T*>(x), static_cast<const Wt*>(w), static_cast<const Wt*>(r), static_cast<const Wt*>(bias), static_cast<const T*>(h0),
          static_cast<const T*>(c0), static_cast<T*>(y), static_cast<T*>(y_h), static_cast<T*>(y_c), s);
      status = hipGetLastError();
    });
  });
  return status;
}

}  // namespace switchyard::kernels
