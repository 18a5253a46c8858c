// JS class PoolPrimitive: one per MaxPool/AveragePool/GlobalAveragePool node and input shape.
#pragma once

#include <napi.h>

#include <memory>

#include "pool_kernel.h"

namespace switchyard {

class PoolPrimitive : public Napi::ObjectWrap<PoolPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new PoolPrimitive({inputDims, kind, kernel, strides?, padsBegin?, padsEnd?, threads?, block?}).
  //        Throws a coded Error on bad options or when oneDNN has no implementation.
  explicit PoolPrimitive(const Napi::CallbackInfo& info);

 private:
  // [async] run(x, y): Promise<void>. x/y stay referenced until the promise settles.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(x, y): void.
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose()
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters: outputDims, implementation, threads.
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);

  const PoolKernel& Kernel(Napi::Env env, const char* method) const;

  std::shared_ptr<const PoolKernel> kernel_;
};

}  // namespace switchyard
