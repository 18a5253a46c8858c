// JS class ConvTransposePrimitive: one per ConvTranspose node and input shape (conv_transpose_kernel.h).
#pragma once

#include <napi.h>

#include "conv_transpose_kernel.h"
#include "kernel_wrap.h"

namespace switchyard {

class ConvTransposePrimitive : public KernelWrap<ConvTransposePrimitive, ConvTransposeKernel> {
 public:
  static constexpr char kClass[] = "ConvTransposePrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ConvTransposePrimitive({inputDims, weightDims, group?, strides?, dilations?, padsBegin?, padsEnd?,
  //        outputPadding?, hasBias?, activation?, activationAlpha?, activationBeta?, threads?, weights?, bias?,
  //        srcBlock?, dstBlock?, depthToSpace?}). Builds the oneDNN deconvolution (or, kernel = stride, a 1x1 conv + copy) and packs `weights`/`bias` when given
  //        (constant initializers). Throws a coded Error on bad options.
  explicit ConvTransposePrimitive(const Napi::CallbackInfo& info);

 private:
  // run / runSync / dispose and the outputDims / implementation / threads getters are KernelWrap's:
  // [async] run(x, w | null, b | null, y): Promise<void>. x/w/b/y stay referenced until the promise
  //         settles; w/b must be null when packed at construction.
  // [sync] runSync(x, w | null, b | null, y): void.
  // [sync] dispose()
  // [sync] getters of its own: weightsPacked, and
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
  // primitiveLayouts, {src, dst}: the blocks (0 plain, 8/16, -1 other) of the layouts oneDNN chose.
  Napi::Value PrimitiveLayouts(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
