// JS class ConvDwPrimitive: a 1x1 conv fused with the 3x3 depthwise conv after it (conv_dw_kernel.h),
// one per fused node of the CPU EP's graph; weights are constants packed at construction.
#pragma once

#include <napi.h>

#include "conv_dw_kernel.h"
#include "kernel_wrap.h"

namespace switchyard {

class ConvDwPrimitive : public KernelWrap<ConvDwPrimitive, ConvDwKernel> {
 public:
  static constexpr char kClass[] = "ConvDwPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ConvDwPrimitive({inputDims [N, C, H, W], channels (M), stride (1 | 2), weights ([M, C]),
  //        bias?, dwWeights ([M, 3, 3]), dwBias?, activation?, activationAlpha?, activationBeta?,
  //        dwActivation?, dwActivationAlpha?, dwActivationBeta?, threads?, srcBlock?, dstBlock?}).
  //        Throws a coded Error on bad options or when oneDNN has no fused implementation.
  explicit ConvDwPrimitive(const Napi::CallbackInfo& info);

  // Its JS members are all KernelWrap's:
  // [async] run(x, y): Promise<void>. x/y stay referenced until the promise settles.
  // [sync] runSync(x, y): void.
  // [sync] dispose(): frees the primitive once in-flight runs finish.
  // [sync] getters: outputDims, implementation, threads.
};

}  // namespace switchyard
