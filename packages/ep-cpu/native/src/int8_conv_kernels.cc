#include "int8_conv_kernels.h"

#include <cstring>
#include <vector>

#include "engine.h"
#include "scratchpad.h"

namespace switchyard {

namespace {

// The buffer Int8Conv reads x from (this thread's, or owned by the memory when large).
dnnl::memory InputBuffer(const Int8Conv& conv) {
  return TempMemory(dnnl::memory::desc({conv.inputLayout().bytes()}, dnnl::memory::data_type::u8, dnnl::memory::format_tag::x), TempSlot::kInt8Input);
}

uint8_t* Bytes(const dnnl::memory& m) { return static_cast<uint8_t*>(m.get_data_handle()); }

// Copies planar 8-bit x into Int8Conv's layout; returns the zero point as stored there (int8 shifted to uint8).
int32_t PrepareInput(const Int8Conv& conv, const void* x, const void* xZero, uint8_t* buffer) {
  const bool isSigned = conv.params().inputSigned;
  const int32_t zero = xZero ? (isSigned ? static_cast<const int8_t*>(xZero)[0] + 128 : static_cast<const uint8_t*>(xZero)[0]) : (isSigned ? 128 : 0);
  conv.inputLayout().Copy(static_cast<const uint8_t*>(x), isSigned, static_cast<uint8_t>(zero), buffer);
  return zero;
}

}  // namespace

ConvIntegerKernel::ConvIntegerKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount)
    : conv_(params, weights, zeroPoints, zeroPointCount) {}

void ConvIntegerKernel::Execute(const void* x, const void* xZero, void* y) const {
  ThreadScope threads(conv_.params().threads);
  const dnnl::memory buffer = InputBuffer(conv_);
  uint8_t* input = Bytes(buffer);
  const int32_t zero = PrepareInput(conv_, x, xZero, input);
  const int64_t m = conv_.outputChannels(), pixels = conv_.outputPixels();
  auto* out = static_cast<int32_t*>(y);
  conv_.Run(input, zero, [&](int64_t n, int64_t p0, int64_t count, const int32_t* tile) {
    for (int64_t c = 0; c < m; ++c) std::memcpy(out + (n * m + c) * pixels + p0, tile + c * count, static_cast<size_t>(count) * sizeof(int32_t));
  });
}

QLinearConvKernel::QLinearConvKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount, QuantType output, bool relu)
    : conv_(params, weights, zeroPoints, zeroPointCount), output_(output), relu_(relu) {}

void QLinearConvKernel::Execute(const void* x, const void* xZero, const void* bias, const void* multipliers, const void* yZero, void* y) const {
  ThreadScope threads(conv_.params().threads);
  const dnnl::memory buffer = InputBuffer(conv_);
  uint8_t* input = Bytes(buffer);
  const int32_t zero = PrepareInput(conv_, x, xZero, input);
  const int64_t m = conv_.outputChannels(), pixels = conv_.outputPixels();
  const QuantRange range = RangeOf(output_);
  const float yz = yZero ? static_cast<float>(output_ == QuantType::kInt8 ? static_cast<const int8_t*>(yZero)[0] : static_cast<const uint8_t*>(yZero)[0]) : 0.0f;
  const RequantBounds bounds{relu_ && yz > range.lo ? yz : range.lo, range.hi};
  const auto* b = static_cast<const int32_t*>(bias);
  const auto* mult = static_cast<const float*>(multipliers);
  auto* out = static_cast<uint8_t*>(y);
  conv_.Run(input, zero, [&](int64_t n, int64_t p0, int64_t count, const int32_t* tile) {
    for (int64_t c = 0; c < m; ++c) RequantizeRow(tile + c * count, count, b ? b[c] : 0, mult[c], yz, bounds, out + (n * m + c) * pixels + p0);
  });
}

DynamicQuantizedConvKernel::DynamicQuantizedConvKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount, bool hasBias, bool relu)
    : conv_(params, weights, zeroPoints, zeroPointCount), hasBias_(hasBias), relu_(relu) {}

void DynamicQuantizedConvKernel::Execute(const void* x, const void* scales, const void* bias, void* y) const {
  ThreadScope threads(conv_.params().threads);
  const auto* in = static_cast<const float*>(x);
  const int64_t m = conv_.outputChannels(), pixels = conv_.outputPixels();
  float min = 0.0f, max = 0.0f;
  MinMaxWithZero(in, ElementCount(conv_.params().input, "input"), &min, &max);
  const QuantParams q = DynamicQuantParams(min, max);
  const dnnl::memory buffer = InputBuffer(conv_);
  uint8_t* input = Bytes(buffer);
  conv_.inputLayout().Quantize(in, q, input);
  // The graph's Mul(x_scale, w_scale): one float product per channel.
  std::vector<float> scale(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) scale[i] = q.scale * static_cast<const float*>(scales)[i];
  const auto* b = static_cast<const float*>(bias);
  auto* out = static_cast<float*>(y);
  conv_.Run(input, q.zeroPoint, [&](int64_t image, int64_t p0, int64_t count, const int32_t* tile) {
    for (int64_t ch = 0; ch < m; ++ch) {
      float* row = out + (image * m + ch) * pixels + p0;
      if (hasBias_) ScaleBiasRow(tile + ch * count, count, scale[ch], b[ch], relu_, row);
      else ScaleRow(tile + ch * count, count, scale[ch], relu_, row);
    }
  });
}

}  // namespace switchyard
