// JS class ConvDwPrimitive: a 1x1 conv fused with the 3x3 depthwise conv after it (conv_dw_kernel.h),
// one per fused node of the CPU EP's graph; weights are constants packed at construction.
#pragma once

#include <napi.h>

#include <memory>

#include "conv_dw_kernel.h"

namespace switchyard {

class ConvDwPrimitive : public Napi::ObjectWrap<ConvDwPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new ConvDwPrimitive({inputDims [N, C, H, W], channels (M), stride (1 | 2), weights ([M, C]),
  //        bias?, dwWeights ([M, 3, 3]), dwBias?, activation?, activationAlpha?, activationBeta?,
  //        dwActivation?, dwActivationAlpha?, dwActivationBeta?, threads?, srcBlock?, dstBlock?}).
  //        Throws a coded Error on bad options or when oneDNN has no fused implementation.
  explicit ConvDwPrimitive(const Napi::CallbackInfo& info);

 private:
  // [async] run(x, y): Promise<void>. x/y stay referenced until the promise settles.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(x, y): void.
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose(): frees the primitive once in-flight runs finish.
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters: outputDims, implementation, threads.
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);

  const ConvDwKernel& Kernel(Napi::Env env, const char* method) const;

  std::shared_ptr<const ConvDwKernel> kernel_;
};

}  // namespace switchyard
