// JS class StridedMatMulPrimitive: one per StridedMatMul node and shape set; holds a
// StridedMatMulKernel (see strided_matmul_kernel.h) reused on every run.
#pragma once

#include <napi.h>

#include <memory>

#include "strided_matmul_kernel.h"

namespace switchyard {

class StridedMatMulPrimitive : public Napi::ObjectWrap<StridedMatMulPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new StridedMatMulPrimitive({aDims, bDims, permA?, permB?, permY?, scale?, maskDims?, threads?}).
  //        maskDims present (even []) means run takes a mask. Throws a coded Error on bad options.
  explicit StridedMatMulPrimitive(const Napi::CallbackInfo& info);

 private:
  // [async] run(a, b, mask | null, y): Promise<void>. Buffers stay referenced until the promise settles.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(a, b, mask | null, y): void.
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose(): frees the primitive once in-flight runs finish.
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters.
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);

  const StridedMatMulKernel& Kernel(Napi::Env env, const char* method) const;

  std::shared_ptr<const StridedMatMulKernel> kernel_;
};

}  // namespace switchyard
