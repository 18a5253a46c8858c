// JS classes over the int8 matrix products (int8_matmul_kernels.h): one object per node and shape of A,
// B packed at construction. run / runSync / dispose and the outputDims / implementation / threads getters
// are KernelWrap's (kernel_wrap.h).
//
// Options shared by the three constructors:
//   {aDims (rank >= 2), bDims: [K, N], threads?, weights: Uint8Array | Int8Array (B, constant),
//    weightZeroPoints?: B's type, 1 or N elements, weightSplit?: 'auto' | 'always'}
#pragma once

#include <napi.h>

#include "int8_matmul_kernels.h"
#include "kernel_wrap.h"

namespace switchyard {

// [sync] new MatMulIntegerPrimitive({...shared, inputType?: 'uint8' | 'int8', aZeroPointCount?: 1 | M}).
// [async] run(a, aZero | null, y: Int32Array) / [sync] runSync(...): aZero has aZeroPointCount elements of A's type.
class MatMulIntegerPrimitive : public KernelWrap<MatMulIntegerPrimitive, MatMulIntegerKernel> {
 public:
  static constexpr char kClass[] = "MatMulIntegerPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit MatMulIntegerPrimitive(const Napi::CallbackInfo& info);
};

// [sync] new QLinearMatMulPrimitive({...shared, inputType?, aZeroPointCount?, outputType?: 'uint8' | 'int8', relu?}).
// [async] run(a, aZero | null, bias: Int32Array(N) | null, multipliers: Float32Array(N), yZero | null, y) / [sync] runSync(...).
class QLinearMatMulPrimitive : public KernelWrap<QLinearMatMulPrimitive, QLinearMatMulKernel> {
 public:
  static constexpr char kClass[] = "QLinearMatMulPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit QLinearMatMulPrimitive(const Napi::CallbackInfo& info);
};

// [sync] new DynamicQuantizedMatMulPrimitive({...shared, hasBias?, relu?}): A is float32.
// [async] run(a, scales: Float32Array(N), bias: Float32Array(N) | null, y: Float32Array) / [sync] runSync(...).
class DynamicQuantizedMatMulPrimitive : public KernelWrap<DynamicQuantizedMatMulPrimitive, DynamicQuantizedMatMulKernel> {
 public:
  static constexpr char kClass[] = "DynamicQuantizedMatMulPrimitive";
  static Napi::Function Define(Napi::Env env);
  explicit DynamicQuantizedMatMulPrimitive(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
