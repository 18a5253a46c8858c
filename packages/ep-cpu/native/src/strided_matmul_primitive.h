// JS class StridedMatMulPrimitive: one per StridedMatMul node and shape set; holds a
// StridedMatMulKernel (see strided_matmul_kernel.h) reused on every run.
#pragma once

#include <napi.h>

#include "kernel_wrap.h"
#include "strided_matmul_kernel.h"

namespace switchyard {

class StridedMatMulPrimitive : public KernelWrap<StridedMatMulPrimitive, StridedMatMulKernel> {
 public:
  static constexpr char kClass[] = "StridedMatMulPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new StridedMatMulPrimitive({aDims, bDims, permA?, permB?, permY?, scale?, maskDims?, threads?}).
  //        maskDims present (even []) means run takes a mask. Throws a coded Error on bad options.
  explicit StridedMatMulPrimitive(const Napi::CallbackInfo& info);

  // Its JS members are all KernelWrap's (it has no threads getter):
  // [async] run(a, b, mask | null, y): Promise<void>. Buffers stay referenced until the promise settles.
  // [sync] runSync(a, b, mask | null, y): void.
  // [sync] dispose(): frees the primitive once in-flight runs finish.
  // [sync] getters: outputDims, implementation.
};

}  // namespace switchyard
