// The three int8 convolutions the CPU EP runs, each an Int8Conv (int8_conv.h) with its own input
// preparation and epilogue; V8-free, Execute const and thread-safe. Tensors are planar (ONNX NCHW).
#pragma once

#include <string>

#include "int8_conv.h"
#include "int8_epilogue.h"
#include "quantize_kernels.h"

namespace switchyard {

// ONNX ConvInteger: y (int32) = Σ (x - x_zp)(w - w_zp), exact.
class ConvIntegerKernel {
 public:
  ConvIntegerKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount);
  // x: uint8/int8 (params.inputSigned); xZero: one element of x's type, or null (0); y: int32.
  void Execute(const void* x, const void* xZero, void* y) const;

  const Int8ConvParams& params() const { return conv_.params(); }
  const Dims& outputDims() const { return conv_.outputDims(); }
  std::string implementation() const { return conv_.implementation(); }

 private:
  Int8Conv conv_;
};

// ONNX QLinearConv (and the QDQ fusion's conv): y = saturate(round((conv + bias[m]) · multipliers[m]) + y_zp),
// optionally with a Relu folded in (y >= y_zp).
class QLinearConvKernel {
 public:
  QLinearConvKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount, QuantType output, bool relu);
  // bias: M int32 or null; multipliers: M floats (x_scale · w_scale[m] / y_scale, rounded as the caller
  // defines); yZero: one element of the output type, or null (0).
  void Execute(const void* x, const void* xZero, const void* bias, const void* multipliers, const void* yZero, void* y) const;

  const Int8ConvParams& params() const { return conv_.params(); }
  const Dims& outputDims() const { return conv_.outputDims(); }
  std::string implementation() const { return conv_.implementation(); }
  QuantType outputType() const { return output_; }

 private:
  Int8Conv conv_;
  QuantType output_;
  bool relu_;
};

// The dynamic-quantization fusion's conv: x (float32) → DynamicQuantizeLinear → ConvInteger → Cast →
// · (x_scale · scales[m]) [→ + bias[m]] [→ Relu], the graph's float arithmetic step by step.
class DynamicQuantizedConvKernel {
 public:
  DynamicQuantizedConvKernel(const Int8ConvParams& params, const void* weights, const void* zeroPoints, int64_t zeroPointCount, bool hasBias, bool relu);
  // x, scales (M), bias (M, or null without hasBias) and y are float32.
  void Execute(const void* x, const void* scales, const void* bias, void* y) const;

  const Int8ConvParams& params() const { return conv_.params(); }
  const Dims& outputDims() const { return conv_.outputDims(); }
  std::string implementation() const { return conv_.implementation(); }
  bool hasBias() const { return hasBias_; }

 private:
  Int8Conv conv_;
  bool hasBias_;
  bool relu_;
};

}  // namespace switchyard
