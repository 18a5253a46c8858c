// JS class GemmPrimitive: one per Gemm node and shape; holds a GemmKernel (primitive, B packed and C
// copied when they are constant initializers) reused on every run.
#pragma once

#include <napi.h>

#include "gemm_kernel.h"
#include "kernel_wrap.h"

namespace switchyard {

class GemmPrimitive : public KernelWrap<GemmPrimitive, GemmKernel> {
 public:
  static constexpr char kClass[] = "GemmPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new GemmPrimitive({aDims, bDims, transA?, transB?, alpha?, beta?, cDims?, threads?, b?, c?}).
  //        `cDims` present means Gemm has a C input (rank 0–2). Throws a coded Error on bad options.
  explicit GemmPrimitive(const Napi::CallbackInfo& info);

 private:
  // run / runSync / dispose and the outputDims / implementation / threads getters are KernelWrap's:
  // [async] run(a, b | null, c | null, y): Promise<void>. Buffers stay referenced until it settles;
  //         b / c must be null when packed at construction (c also when there is no C).
  // [sync] runSync(a, b | null, c | null, y): void.
  // [sync] dispose()
  // [sync] getters of its own: weightsPacked, cMode ('none' | 'bias' | 'sum').
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
  Napi::Value CMode(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
