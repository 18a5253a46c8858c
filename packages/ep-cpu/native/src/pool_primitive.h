// JS class PoolPrimitive: one per MaxPool/AveragePool/GlobalAveragePool node and input shape.
#pragma once

#include <napi.h>

#include "kernel_wrap.h"
#include "pool_kernel.h"

namespace switchyard {

class PoolPrimitive : public KernelWrap<PoolPrimitive, PoolKernel> {
 public:
  static constexpr char kClass[] = "PoolPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new PoolPrimitive({inputDims, kind, kernel, strides?, padsBegin?, padsEnd?, threads?, block?}).
  //        Throws a coded Error on bad options or when oneDNN has no implementation.
  explicit PoolPrimitive(const Napi::CallbackInfo& info);

  // Its JS members are all KernelWrap's:
  // [async] run(x, y): Promise<void>. x/y stay referenced until the promise settles.
  // [sync] runSync(x, y): void.
  // [sync] dispose()
  // [sync] getters: outputDims, implementation, threads.
};

}  // namespace switchyard
