// The three int8 matrix products the CPU EP runs, each an Int8MatMul (int8_matmul.h) with its own
// epilogue; V8-free, Execute const and thread-safe. A is [..., M, K] (row-major, batch dims folded into
// rows), B a constant [K, N]; outputs are [..., M, N] row-major.
#pragma once

#include <string>

#include "int8_epilogue.h"
#include "int8_matmul.h"
#include "memory_desc.h"
#include "quantize_kernels.h"

namespace switchyard {

struct Int8MatMulShape {
  Dims a;                     // A's dims, rank >= 2
  int64_t aZeroPointCount = 1;  // 1 (per tensor) or M (per row of each matrix)
};

// Int8MatMulParams for A of `shape` and B of [K, N]; checks them (throws CodedError INVALID_ARGUMENT).
Int8MatMulParams MatMulParamsFor(const Int8MatMulShape& shape, const Dims& b, bool aSigned, bool bSigned, WeightSplit split, int threads);

// The output dims: A's with the last replaced by N.
Dims MatMulOutputDimsFor(const Int8MatMulShape& shape, int64_t columns);

// ONNX MatMulInteger: y (int32) = Σ_k (a - a_zp)(b - b_zp), exact.
class MatMulIntegerKernel {
 public:
  MatMulIntegerKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount);
  // aZero: aZeroPointCount elements of A's type, or null (0).
  void Execute(const void* a, const void* aZero, void* y) const;

  const Int8MatMulParams& params() const { return matmul_.params(); }
  const Int8MatMulShape& shape() const { return shape_; }
  const Dims& outputDims() const { return outputDims_; }
  std::string implementation() const { return matmul_.implementation(); }

 private:
  Int8MatMulShape shape_;
  Int8MatMul matmul_;
  Dims outputDims_;
};

// ONNX QLinearMatMul with a per-tensor a_scale (and the QDQ fusion's QuantizedMatMul: + bias, Relu):
// y = saturate(round_half_even(float((acc + bias[n]) · multipliers[n])) + y_zp).
class QLinearMatMulKernel {
 public:
  QLinearMatMulKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount, QuantType output, bool relu);
  // bias: N int32 or null; multipliers: N floats; yZero: one element of the output type or null.
  void Execute(const void* a, const void* aZero, const void* bias, const void* multipliers, const void* yZero, void* y) const;

  const Int8MatMulParams& params() const { return matmul_.params(); }
  const Int8MatMulShape& shape() const { return shape_; }
  const Dims& outputDims() const { return outputDims_; }
  std::string implementation() const { return matmul_.implementation(); }
  QuantType outputType() const { return output_; }

 private:
  Int8MatMulShape shape_;
  Int8MatMul matmul_;
  Dims outputDims_;
  QuantType output_;
  bool relu_;
};

// The dynamic-quantization fusion's matmul: A (float32) → DynamicQuantizeLinear → MatMulInteger → Cast →
// · (a_scale · scales[n]) [→ + bias[n]] [→ Relu], every float step as the unfused graph rounds it.
class DynamicQuantizedMatMulKernel {
 public:
  DynamicQuantizedMatMulKernel(const Int8MatMulShape& shape, const Int8MatMulParams& params, const void* b, const void* bZero, int64_t bZeroCount, bool hasBias, bool relu);
  // a, scales (N), bias (N, or null without hasBias) and y are float32.
  void Execute(const void* a, const void* scales, const void* bias, void* y) const;

  const Int8MatMulParams& params() const { return matmul_.params(); }
  const Dims& outputDims() const { return outputDims_; }
  std::string implementation() const { return matmul_.implementation(); }
  bool hasBias() const { return hasBias_; }

 private:
  Int8MatMul matmul_;
  Dims outputDims_;
  bool hasBias_;
  bool relu_;
};

}  // namespace switchyard
