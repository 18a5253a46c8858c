// JS class GemmPrimitive: one per Gemm node and shape; holds a GemmKernel (primitive, B packed and C
// copied when they are constant initializers) reused on every run.
#pragma once

#include <napi.h>

#include <memory>

#include "gemm_kernel.h"

namespace switchyard {

class GemmPrimitive : public Napi::ObjectWrap<GemmPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new GemmPrimitive({aDims, bDims, transA?, transB?, alpha?, beta?, cDims?, threads?, b?, c?}).
  //        `cDims` present means Gemm has a C input (rank 0–2). Throws a coded Error on bad options.
  explicit GemmPrimitive(const Napi::CallbackInfo& info);

 private:
  // [async] run(a, b | null, c | null, y): Promise<void>. Buffers stay referenced until it settles;
  //         b / c must be null when packed at construction (c also when there is no C).
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(a, b | null, c | null, y): void.
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose()
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters: outputDims, implementation, threads, weightsPacked, cMode ('none' | 'bias' | 'sum').
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
  Napi::Value CMode(const Napi::CallbackInfo& info);

  const GemmKernel& Kernel(Napi::Env env, const char* method) const;

  std::shared_ptr<const GemmKernel> kernel_;
};

}  // namespace switchyard
