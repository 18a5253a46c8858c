#include "int8_matmul_kernels.h"

#include <cstring>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "scratchpad.h"

namespace switchyard {

Int8MatMulParams MatMulParamsFor(const Int8MatMulShape& shape, const Dims& b, bool aSigned, bool bSigned, WeightSplit split, int threads) {
  const auto fail = [](const std::string& m) { throw CodedError("INVALID_ARGUMENT", "MatMulInteger: " + m); };
  if (shape.a.size() < 2) fail("A must have rank >= 2 (1-D A is promoted by the caller), got " + DimsToString(shape.a));
  if (b.size() != 2) fail("B must be 2-D [K, N], got " + DimsToString(b));
  ElementCount(shape.a, "MatMulInteger: A");
  ElementCount(b, "MatMulInteger: B");
  if (shape.a.back() != b[0]) fail("inner dimensions differ: A " + DimsToString(shape.a) + " x B " + DimsToString(b));
  const int64_t m = shape.a[shape.a.size() - 2];
  if (shape.aZeroPointCount != 1 && shape.aZeroPointCount != m) fail("a_zero_point must have 1 or " + std::to_string(m) + " (per row) elements");
  Int8MatMulParams p;
  p.rows = ElementCount(shape.a, "MatMulInteger: A") / shape.a.back();
  p.inner = b[0];
  p.columns = b[1];
  p.aSigned = aSigned;
  p.bSigned = bSigned;
  p.split = split;
  p.threads = threads;
  return p;
}

Dims MatMulOutputDimsFor(const Int8MatMulShape& shape, int64_t columns) {
  Dims out = shape.a;
  out.back() = columns;
  return out;
}

MatMulIntegerKernel::MatMulIntegerKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount)
    : shape_(shape), matmul_(params, b, bZero, bZeroCount), outputDims_(MatMulOutputDimsFor(shape, params.columns)) {}

void MatMulIntegerKernel::Execute(const void* a, const void* aZero, void* y) const {
  const int64_t n = matmul_.params().columns;
  auto* out = static_cast<int32_t*>(y);
  matmul_.Run(a, aZero, shape_.aZeroPointCount, [&](int64_t r0, int64_t count, const int32_t* tile) {
    std::memcpy(out + r0 * n, tile, static_cast<size_t>(count * n) * sizeof(int32_t));
  });
}

QLinearMatMulKernel::QLinearMatMulKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount, QuantType output, bool relu)
    : shape_(shape), matmul_(params, b, bZero, bZeroCount), outputDims_(MatMulOutputDimsFor(shape, params.columns)), output_(output), relu_(relu) {}

void QLinearMatMulKernel::Execute(const void* a, const void* aZero, const void* bias, const void* multipliers, const void* yZero, void* y) const {
  const int64_t n = matmul_.params().columns;
  const QuantRange range = RangeOf(output_);
  const float yz = yZero ? static_cast<float>(output_ == QuantType::kInt8 ? static_cast<const int8_t*>(yZero)[0] : static_cast<const uint8_t*>(yZero)[0]) : 0.0f;
  const RequantBounds bounds{relu_ && yz > range.lo ? yz : range.lo, range.hi};
  const auto* b = static_cast<const int32_t*>(bias);
  const auto* mult = static_cast<const float*>(multipliers);
  auto* out = static_cast<uint8_t*>(y);
  matmul_.Run(a, aZero, shape_.aZeroPointCount, [&](int64_t r0, int64_t count, const int32_t* tile) {
    for (int64_t i = 0; i < count; ++i) RequantizeRowPerElement(tile + i * n, n, b, mult, yz, bounds, out + (r0 + i) * n);
  });
}

DynamicQuantizedMatMulKernel::DynamicQuantizedMatMulKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount, bool hasBias, bool relu)
    : matmul_(params, b, bZero, bZeroCount), outputDims_(MatMulOutputDimsFor(shape, params.columns)), hasBias_(hasBias), relu_(relu) {}

void DynamicQuantizedMatMulKernel::Execute(const void* a, const void* scales, const void* bias, void* y) const {
  ThreadScope threads(matmul_.params().threads);
  const int64_t rows = matmul_.params().rows, k = matmul_.params().inner, n = matmul_.params().columns;
  const auto* in = static_cast<const float*>(a);
  float min = 0.0f, max = 0.0f;
  MinMaxWithZero(in, rows * k, &min, &max);
  const QuantParams q = DynamicQuantParams(min, max);
  const dnnl::memory buffer = TempMemory(dnnl::memory::desc({rows * k}, dnnl::memory::data_type::u8, dnnl::memory::format_tag::x), TempSlot::kInt8Input);
  auto* quantized = static_cast<uint8_t*>(buffer.get_data_handle());
  QuantizeTensor(in, rows * k, q, QuantType::kUint8, quantized);
  // The graph's Mul(a_scale, scales): one float product per column.
  std::vector<float> scale(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c) scale[c] = q.scale * static_cast<const float*>(scales)[c];
  const auto zero = static_cast<uint8_t>(q.zeroPoint);
  const auto* b = hasBias_ ? static_cast<const float*>(bias) : nullptr;
  auto* out = static_cast<float*>(y);
  matmul_.Run(quantized, &zero, 1, [&](int64_t r0, int64_t count, const int32_t* tile) {
    for (int64_t i = 0; i < count; ++i) ScaleBiasRowPerElement(tile + i * n, n, scale.data(), b, relu_, out + (r0 + i) * n);
  });
}

}  // namespace switchyard
