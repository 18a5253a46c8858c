// JS class MatMulPrimitive: one per MatMul node and shape pair; holds a MatMulKernel (primitive and,
// when B is a constant initializer, B pre-packed) reused on every run.
#pragma once

#include <napi.h>

#include <memory>

#include "matmul_kernel.h"

namespace switchyard {

class MatMulPrimitive : public Napi::ObjectWrap<MatMulPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new MatMulPrimitive({aDims, bDims, fuseRelu?, activation?, activationAlpha?, activationBeta?,
  //        hasBias?, threads?, b?, bias?}). Builds the primitive and
  //        packs `b` when given. Both ranks must be >= 2. Throws a coded Error on bad options.
  explicit MatMulPrimitive(const Napi::CallbackInfo& info);

 private:
  // [async] run(a, b | null, y, bias?): Promise<void>. a/b/y/bias stay referenced until the promise settles;
  //         b must be null when packed at construction.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(a, b | null, y, bias?): void. Same, on the calling thread (for small products).
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose(): frees the primitive and packed B once in-flight runs finish.
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters.
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);

  const MatMulKernel& Kernel(Napi::Env env, const char* method) const;

  std::shared_ptr<const MatMulKernel> kernel_;
};

}  // namespace switchyard
