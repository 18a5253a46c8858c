// ONNX LSTM on the GPU, in two forms (see launch.h).
//
// Stepped (given a workspace): the input half of every gate, x_t·Wᵀ + Wb + Rb, does not depend on
// the recurrence, so one tiled projection kernel computes it for all steps first. Then each time step
// is one launch over (batch row, group of hidden units, direction): a warp owns one hidden unit, dots
// its four gate rows of R with h_{t-1} (lanes striding along the row, so R reads are coalesced; R stays
// in L2 between steps), adds the projected gates and updates c and h. h is double-buffered in the
// workspace (a step reads one copy while writing the other); c is updated in place, each unit by its
// own warp. The sequential path is then only R·h, spread over as many blocks as there are units.
//
// Single-block (no workspace): one block per (batch row, direction) walks the sequence, keeping h and
// c in shared memory. Each time step: x_t is staged in shared memory, each warp computes whole gate
// rows (W·x_t + R·h + biases, then a warp reduction), and the threads update c and h per hidden unit.
// One launch, but the weights are re-read every step and a batch row's steps never leave its block.
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

// Hidden units one block of the stepped form owns (a warp each; with fewer warps a warp takes several).
constexpr int64_t kLstmUnits = 8;
// The projection's square tile: kBlockSize threads as kTile x kTile.
constexpr int kTile = 16;
static_assert(kTile * kTile == kBlockSize, "the projection tile is one block");

// g[d][m][n] = x[m]·w[d][n] + wb[d][n] + rb[d][n] over m in seq * batch rows and n in 4 * hidden gate
// rows: a shared-memory tiled GEMM against Wᵀ (both tiles loaded along k, so reads are coalesced).
template <typename T, typename Wt>
__global__ void LstmProjectKernel(const T* __restrict__ x, const Wt* __restrict__ w, const Wt* __restrict__ bias, float* __restrict__ g,
                                  int64_t rows, int64_t cols, int64_t depth) {
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  const int64_t d = blockIdx.z;
  const int64_t m = static_cast<int64_t>(blockIdx.x) * kTile + ty;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const Wt* wd = w + d * cols * depth;
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < depth; k0 += kTile) {
    const int64_t k = k0 + tx;
    xs[ty][tx] = m < rows && k < depth ? ToFloat(x[m * depth + k]) : 0.0f;
    ws[ty][tx] = n0 + ty < cols && k < depth ? ToFloat(wd[(n0 + ty) * depth + k]) : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc += xs[ty][kk] * ws[tx][kk];
    __syncthreads();
  }
  const int64_t n = n0 + tx;
  if (m >= rows || n >= cols) return;
  const Wt* bd = bias != nullptr ? bias + d * 2 * cols : nullptr;
  g[(d * rows + m) * cols + n] = acc + (bd != nullptr ? ToFloat(bd[n]) + ToFloat(bd[cols + n]) : 0.0f);
}

// h and c [dirs, batch, hidden] from the initial states (zeros where absent). With an empty sequence
// the final states are the initial ones: y_h and y_c are given then and written here.
template <typename T>
__global__ void LstmInitKernel(const T* __restrict__ h0, const T* __restrict__ c0, float* __restrict__ h, float* __restrict__ c,
                               T* __restrict__ y_h, T* __restrict__ y_c, int64_t count) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float hv = h0 != nullptr ? ToFloat(h0[i]) : 0.0f;
    const float cv = c0 != nullptr ? ToFloat(c0[i]) : 0.0f;
    h[i] = hv;
    c[i] = cv;
    if (y_h != nullptr) y_h[i] = FromFloat<T>(hv);
    if (y_c != nullptr) y_c[i] = FromFloat<T>(cv);
  }
}

// One time step: block (b, unit group, dir); warp per hidden unit j: its i, o, f, c rows of R · h_prev.
template <typename T, typename Wt>
__global__ void LstmStepKernel(const float* __restrict__ g, const Wt* __restrict__ r, const float* __restrict__ h_prev,
                               float* __restrict__ h_next, float* __restrict__ c, T* __restrict__ y, T* __restrict__ y_h,
                               T* __restrict__ y_c, LstmShape s, int64_t step) {
  const int64_t hidden = s.hidden, b = blockIdx.x, dir = blockIdx.z;
  const bool backwards = s.dirs == 2 ? dir == 1 : s.reverse;
  const int64_t t = backwards ? s.seq - 1 - step : step;
  const int64_t state = (dir * s.batch + b) * hidden;
  const float* hp = h_prev + state;
  const Wt* rd = r + dir * 4 * hidden * hidden;
  const float* gt = g + ((dir * s.seq + t) * s.batch + b) * 4 * hidden;
  const int lane = threadIdx.x % warpSize;
  const int warps = blockDim.x / warpSize;
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kLstmUnits;
  const int64_t last = first + kLstmUnits < hidden ? first + kLstmUnits : hidden;
  for (int64_t j = first + threadIdx.x / warpSize; j < last; j += warps) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t k = lane; k < hidden; k += warpSize) {
      const float hk = hp[k];
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[q] += ToFloat(rd[(q * hidden + j) * hidden + k]) * hk;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) acc[q] = WarpReduce<Combine::kSum>(acc[q]);
    if (lane != 0) continue;
    const float i = Sigmoid(acc[0] + gt[j]);
    const float o = Sigmoid(acc[1] + gt[hidden + j]);
    const float f = Sigmoid(acc[2] + gt[2 * hidden + j]);
    const float cell = f * c[state + j] + i * tanhf(acc[3] + gt[3 * hidden + j]);
    const float out = o * tanhf(cell);
    c[state + j] = cell;
    h_next[state + j] = out;
    if (y != nullptr) y[((t * s.dirs + dir) * s.batch + b) * hidden + j] = FromFloat<T>(out);
    if (step == s.seq - 1) {
      if (y_h != nullptr) y_h[state + j] = FromFloat<T>(out);
      if (y_c != nullptr) y_c[state + j] = FromFloat<T>(cell);
    }
  }
}

template <typename T, typename Wt>
hipError_t LaunchStepped(const T* x, const Wt* w, const Wt* r, const Wt* bias, const T* h0, const T* c0, T* y, T* y_h, T* y_c,
                         const LstmShape& s, void* workspace, hipStream_t stream) {
  const int64_t state = s.dirs * s.batch * s.hidden;
  const int64_t rows = s.seq * s.batch, cols = 4 * s.hidden;
  uint8_t* base = static_cast<uint8_t*>(workspace);
  float* g = reinterpret_cast<float*>(base);
  base += LstmAlign(static_cast<size_t>(s.dirs * rows * cols) * sizeof(float));
  float* h[2] = {reinterpret_cast<float*>(base), reinterpret_cast<float*>(base + LstmAlign(state * sizeof(float)))};
  float* c = reinterpret_cast<float*>(base + 2 * LstmAlign(state * sizeof(float)));
  const bool empty = s.seq == 0;
  LstmInitKernel<T><<<BlocksFor(state), kBlockSize, 0, stream>>>(h0, c0, h[0], c, empty ? y_h : nullptr, empty ? y_c : nullptr, state);
  hipError_t status = hipGetLastError();
  if (status != hipSuccess || empty) return status;
  const dim3 project(static_cast<unsigned>((rows + kTile - 1) / kTile), static_cast<unsigned>((cols + kTile - 1) / kTile),
                     static_cast<unsigned>(s.dirs));
  LstmProjectKernel<T, Wt><<<project, kBlockSize, 0, stream>>>(x, w, bias, g, rows, cols, s.input);
  if ((status = hipGetLastError()) != hipSuccess) return status;
  const dim3 grid(static_cast<unsigned>(s.batch), static_cast<unsigned>((s.hidden + kLstmUnits - 1) / kLstmUnits), static_cast<unsigned>(s.dirs));
  for (int64_t step = 0; step < s.seq; ++step) {
    LstmStepKernel<T, Wt><<<grid, kBlockSize, 0, stream>>>(g, r, h[step % 2], h[(step + 1) % 2], c, y, y_h, y_c, s, step);
    if ((status = hipGetLastError()) != hipSuccess) return status;
  }
  return hipSuccess;
}

}  // namespace

hipError_t LaunchLstm(DType dtype, DType weight_dtype, const void* x, const void* w, const void* r, const void* bias, const void* h0,
                      const void* c0, void* y, void* y_h, void* y_c, const LstmShape& s, void* workspace, size_t workspace_bytes,
                      hipStream_t stream) {
  if (s.seq < 0 || s.batch < 0 || s.input < 1 || s.hidden < 1 || (s.dirs != 1 && s.dirs != 2)) return hipErrorInvalidValue;
  const bool stepped = workspace != nullptr && workspace_bytes >= LstmWorkspaceBytes(s);
  // The single-block form: a grid row per batch row (65535 at most) and its state in shared memory.
  if (!stepped && (s.batch > 65535 || LstmSharedBytes(s) > 48 * 1024)) return hipErrorInvalidValue;
  if (stepped && (s.batch > 2147483647 || (s.hidden + kLstmUnits - 1) / kLstmUnits > 65535 ||
                  (s.seq * s.batch + kTile - 1) / kTile > 2147483647 || (4 * s.hidden + kTile - 1) / kTile > 65535)) {
    return hipErrorInvalidValue;
  }
  if (s.batch == 0) return hipSuccess;
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    DispatchFloat(weight_dtype, [&](auto weight_tag) {
      using Wt = decltype(weight_tag);
      if (stepped) {
        status = LaunchStepped<T, Wt>(static_cast<const T*>(x), static_cast<const Wt*>(w), static_cast<const Wt*>(r), static_cast<const Wt*>(bias),
                                      static_cast<const T*>(h0), static_cast<const T*>(c0), static_cast<T*>(y), static_cast<T*>(y_h),
                                      static_cast<T*>(y_c), s, workspace, stream);
        return;
      }
      // A block of whole warps; 256 threads cover 4 * hidden gate rows in 8 (NVIDIA) or 4 (AMD) warps.
      const dim3 grid(static_cast<unsigned>(s.batch), static_cast<unsigned>(s.dirs));
      LstmKernel<T, Wt><<<grid, kBlockSize, LstmSharedBytes(s), stream>>>(
          static_cast<const T*>(x), static_cast<const Wt*>(w), static_cast<const Wt*>(r), static_cast<const Wt*>(bias), static_cast<const T*>(h0),
          static_cast<const T*>(c0), static_cast<T*>(y), static_cast<T*>(y_h), static_cast<T*>(y_c), s);
      status = hipGetLastError();
    });
  });
  return status;
}

}  // namespace switchyard::kernels
