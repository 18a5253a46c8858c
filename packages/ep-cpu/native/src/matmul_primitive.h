// JS class MatMulPrimitive: one per MatMul node and shape pair; holds a MatMulKernel (primitive and,
// when B is a constant initializer, B pre-packed) reused on every run.
#pragma once

#include <napi.h>

#include "kernel_wrap.h"
#include "matmul_kernel.h"

namespace switchyard {

class MatMulPrimitive : public KernelWrap<MatMulPrimitive, MatMulKernel> {
 public:
  static constexpr char kClass[] = "MatMulPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new MatMulPrimitive({aDims, bDims, fuseRelu?, activation?, activationAlpha?, activationBeta?,
  //        hasBias?, threads?, b?, bias?, packedFrom?}). Builds the primitive and
  //        packs `b` when given, or the B another MatMulPrimitive of the same bDims packed (packedFrom). Both ranks must be >= 2. Throws a coded Error on bad options.
  explicit MatMulPrimitive(const Napi::CallbackInfo& info);

 private:
  // run / runSync / dispose and the outputDims / implementation / threads getters are KernelWrap's:
  // [async] run(a, b | null, y, bias?): Promise<void>. a/b/y/bias stay referenced until the promise settles;
  //         b must be null when packed at construction.
  // [sync] runSync(a, b | null, y, bias?): void. Same, on the calling thread (for small products).
  // [sync] dispose(): frees the primitive and packed B once in-flight runs finish.
  // [sync] getter of its own: weightsPacked (B packed at construction).
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
