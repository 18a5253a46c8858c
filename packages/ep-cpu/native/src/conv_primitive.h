// JS class ConvPrimitive: one per Conv node, created at session creation with the node's static
// shapes and attributes; holds a ConvKernel (primitive, reorders, packed weights) reused on every run.
#pragma once

#include <napi.h>

#include "conv_kernel.h"
#include "kernel_wrap.h"

namespace switchyard {

class ConvPrimitive : public KernelWrap<ConvPrimitive, ConvKernel> {
 public:
  static constexpr char kClass[] = "ConvPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ConvPrimitive({inputDims, weightDims, group?, strides?, dilations?, padsBegin?, padsEnd?,
  //        hasBias?, fuseRelu?, activation?, activationAlpha?, activationBeta?, hasSum?, threads?, weights?, bias?,
  //        srcBlock?, dstBlock?, sumBlock? (caller layouts: 0 plain, 8/16 channel-blocked; sumBlock defaults to dstBlock),
  //        winograd?, im2col?, channelSplit? ('auto' | 'always' | 'never', default 'auto': see winograd_conv.h,
  //        im2col_conv.h, channel_split.h)}). Builds the oneDNN primitive (or the algorithm chosen instead) and packs
  //        `weights`/`bias` when given (constant initializers). Throws a coded Error on bad options.
  explicit ConvPrimitive(const Napi::CallbackInfo& info);

  // [sync] ConvPrimitive.algorithm(options): 'winograd' | 'im2col' | 'onednn', which one `new ConvPrimitive(options)`
  //        would run, without building anything (`weights` only needs to be present). Lets a kernel
  //        whose batch is unknown until run time report its algorithm in the placement.
  static Napi::Value Algorithm(const Napi::CallbackInfo& info);

 private:
  // run / runSync / dispose and the outputDims / implementation / threads getters are KernelWrap's:
  // [async] run(x, w | null, b | null, y, z?): Promise<void>. Convolves on the libuv pool; x/w/b/y/z stay
  //         referenced until the promise settles. w/b must be null when packed at construction;
  //         z (shaped like y) is required exactly when built with hasSum.
  // [sync] runSync(x, w | null, b | null, y, z?): void. Same, on the calling thread (for tiny convs).
  // [sync] dispose(): frees the primitive and packed weights once in-flight runs finish.
  // [sync] getters of its own: weightsPacked (weights packed at construction), weightsUnpackable
  // (another ConvPrimitive can take them as options.packedFrom), and
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
  Napi::Value WeightsUnpackable(const Napi::CallbackInfo& info);
  // primitiveLayouts, {src, dst}: the blocks (0 plain, 8/16, -1 other) of the layouts oneDNN chose (what avoids reorders).
  Napi::Value PrimitiveLayouts(const Napi::CallbackInfo& info);
};

}  // namespace switchyard
