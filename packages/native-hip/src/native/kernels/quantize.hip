// The int8 dynamic-quantization family: DynamicQuantizeLinear, and the operand shift that turns the
// integer ops' (x - zero point) into float32 so ConvInteger and MatMulInteger run on the float
// convolution/GEMM paths (tensor cores included) with exact results (plan steps in
// plan/step_ops_quantize.cc; why it is exact: ep-rocm plan/integer-ops.ts).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

// Each block's min and max of its share of x, 0 included. fminf/fmaxf return the other operand for a
// NaN, so NaNs never enter the range (the CPU EP's comparisons skip them the same way).
__global__ void RangePartialsKernel(const float* __restrict__ x, int64_t count, float* __restrict__ partials) {
  __shared__ float scratch[32];
  float lo = 0.0f, hi = 0.0f;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const float v = x[i];
    lo = fminf(lo, v);
    hi = fmaxf(hi, v);
  }
  lo = BlockReduce<Combine::kMin>(lo, scratch);
  hi = BlockReduce<Combine::kMax>(hi, scratch);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = lo;
    partials[gridDim.x + blockIdx.x] = hi;
  }
}

// One block: the partials' range, then scale and zero point in float32 as the spec writes them (the
// subtraction and the divisions each rounded once; no fused multiply-add can arise here).
__global__ void QuantParamsKernel(const float* __restrict__ partials, int blocks, float* __restrict__ scale_out,
                                  uint8_t* __restrict__ zero_point_out) {
  __shared__ float scratch[32];
  float lo = 0.0f, hi = 0.0f;
  for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
    lo = fminf(lo, partials[i]);
    hi = fmaxf(hi, partials[blocks + i]);
  }
  lo = BlockReduce<Combine::kMin>(lo, scratch);
  hi = BlockReduce<Combine::kMax>(hi, scratch);
  if (threadIdx.x != 0) return;
  const float scale = (hi - lo) / 255.0f;
  // An all-zero tensor: scale 0, and zero point 0 rather than 0/0.
  const float zero_point = scale == 0.0f ? 0.0f : fminf(fmaxf(rintf(-lo / scale), 0.0f), 255.0f);
  *scale_out = scale;
  *zero_point_out = static_cast<uint8_t>(zero_point);
}

// rintf rounds half to even; fmaxf(NaN, 0) is 0, so a NaN quantizes to 0 as on the CPU EP.
__global__ void QuantizeKernel(const float* __restrict__ x, int64_t count, const float* __restrict__ scale,
                               const uint8_t* __restrict__ zero_point, uint8_t* __restrict__ y) {
  const float s = *scale;
  const float z = static_cast<float>(*zero_point);
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const float q = s == 0.0f ? z : rintf(x[i] / s) + z;
    y[i] = static_cast<uint8_t>(fminf(fmaxf(q, 0.0f), 255.0f));
  }
}

template <typename T>
__global__ void QuantShiftKernel(const T* __restrict__ x, const T* __restrict__ zero_point, int64_t count, int64_t channels,
                                 int64_t inner, float* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const float z = zero_point == nullptr ? 0.0f : static_cast<float>(zero_point[channels == 1 ? 0 : (i / inner) % channels]);
    out[i] = static_cast<float>(x[i]) - z;
  }
}

// One plane (an image's channel) per grid row, so the channel costs one division per block rather than
// per element (the broadcasting Add's index arithmetic made the unfused bias Add the slowest step of an
// int8 UNet). __fmul_rn/__fadd_rn keep the compiler from contracting the two into one FMA.
__global__ void RescaleKernel(const float* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ bias,
                              float* out, int64_t planes, int64_t channels, int64_t inner, bool relu) {
  const float s = *scale;
  for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y) {
    const float b = bias == nullptr ? 0.0f : bias[plane % channels];
    const float* from = x + plane * inner;
    float* to = out + plane * inner;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < inner; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      float v = __fmul_rn(from[i], s);
      if (bias != nullptr) v = __fadd_rn(v, b);
      to[i] = relu && v < 0.0f ? 0.0f : v;  // a NaN passes, as the Relu op lets it
    }
  }
}

}  // namespace

hipError_t LaunchRescale(const float* x, const float* scale, const float* bias, float* out, int64_t planes, int64_t channels, int64_t inner,
                         bool relu, hipStream_t stream) {
  if (planes < 0 || channels < 1 || inner < 0 || scale == nullptr) return hipErrorInvalidValue;
  if (planes == 0 || inner == 0) return hipSuccess;
  const unsigned across = BlocksFor(inner);
  // Enough blocks in all to fill the GPU; planes past the grid's rows loop.
  const int64_t rows = planes < 65535 ? planes : 65535;
  const dim3 grid(across, static_cast<unsigned>(rows));
  RescaleKernel<<<grid, kBlockSize, 0, stream>>>(x, scale, bias, out, planes, channels, inner, relu);
  return hipGetLastError();
}

hipError_t LaunchDynamicQuantize(const float* x, int64_t count, uint8_t* y, float* scale, uint8_t* zero_point, float* scratch,
                                 hipStream_t stream) {
  if (count < 0 || scale == nullptr || zero_point == nullptr || scratch == nullptr) return hipErrorInvalidValue;
  // Enough blocks to stream x at full bandwidth; each thread then loops over several elements.
  const unsigned wanted = BlocksFor(count, int64_t{kBlockSize} * 8);
  const unsigned blocks = wanted < static_cast<unsigned>(kQuantRangeBlocks) ? wanted : static_cast<unsigned>(kQuantRangeBlocks);
  RangePartialsKernel<<<blocks, kBlockSize, 0, stream>>>(x, count, scratch);
  hipError_t status = hipGetLastError();
  if (status != hipSuccess) return status;
  QuantParamsKernel<<<1, kBlockSize, 0, stream>>>(scratch, static_cast<int>(blocks), scale, zero_point);
  status = hipGetLastError();
  if (status != hipSuccess || count == 0) return status;
  QuantizeKernel<<<BlocksFor(count), kBlockSize, 0, stream>>>(x, count, scale, zero_point, y);
  return hipGetLastError();
}

hipError_t LaunchQuantShift(DType dtype, const void* x, const void* zero_point, int64_t count, int64_t channels, int64_t inner,
                            float* out, hipStream_t stream) {
  if (count < 0 || channels < 1 || inner < 1) return hipErrorInvalidValue;
  if (count == 0) return hipSuccess;
  if (dtype == DType::kUint8) {
    QuantShiftKernel<uint8_t><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const uint8_t*>(x), static_cast<const uint8_t*>(zero_point),
                                                                           count, channels, inner, out);
  } else if (dtype == DType::kInt8) {
    QuantShiftKernel<int8_t><<<BlocksFor(count), kBlockSize, 0, stream>>>(static_cast<const int8_t*>(x), static_cast<const int8_t*>(zero_point),
                                                                          count, channels, inner, out);
  } else {
    return hipErrorInvalidValue;
  }
  return hipGetLastError();
}

}  // namespace switchyard::kernels
