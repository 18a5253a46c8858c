// JS classes over the int8 convolutions (int8_conv_kernels.h): one object per node and input shape,
// weights packed at construction. run / runSync / dispose and the outputDims / implementation / threads
// getters are KernelWrap's (kernel_wrap.h).
//
// Options shared by the three constructors (ONNX Conv geometry, auto_pad resolved by the caller):
//   {inputDims, weightDims, group?, strides?, dilations?, padsBegin?, padsEnd?, threads?,
//    weights: Uint8Array | Int8Array (W, constant), weightZeroPoints?: W's type, 1 or M elements,
//    weightSplit?: 'auto' | 'always' (7-bit weight halves where oneDNN would saturate, or always: tests)}
#pragma once

#include <napi.h>

#include "int8_conv_kernels.h"
#include "kernel_wrap.h"

namespace switchyard {

// [sync] new ConvIntegerPrimitive({...shared, inputType: 'uint8' | 'int8'}).
// [async] run(x, xZero | null, y) / [sync] runSync(...): x of inputType, xZero one element of it,
// y an Int32Array of outputDims.
class ConvIntegerPrimitive : public KernelWrap<ConvIntegerPrimitive, ConvIntegerKernel> {
 public:
  static constexpr char kClass[] = "ConvIntegerPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit ConvIntegerPrimitive(const Napi::CallbackInfo& info);
};

// [sync] new QLinearConvPrimitive({...shared, inputType, outputType: 'uint8' | 'int8', relu?: boolean}).
// [async] run(x, xZero | null, bias: Int32Array(M) | null, multipliers: Float32Array(M), yZero | null, y) /
// [sync] runSync(...): y of outputType.
class QLinearConvPrimitive : public KernelWrap<QLinearConvPrimitive, QLinearConvKernel> {
 public:
  static constexpr char kClass[] = "QLinearConvPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit QLinearConvPrimitive(const Napi::CallbackInfo& info);
};

// [sync] new DynamicQuantizedConvPrimitive({...shared, hasBias?: boolean, relu?: boolean}): x is float32.
// [async] run(x, scales: Float32Array(M), bias: Float32Array(M) | null, y: Float32Array) / [sync] runSync(...).
class DynamicQuantizedConvPrimitive : public KernelWrap<DynamicQuantizedConvPrimitive, DynamicQuantizedConvKernel> {
 public:
  static constexpr char kClass[] = "DynamicQuantizedConvPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit DynamicQuantizedConvPrimitive(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
