// JS class ConvPrimitive: one per Conv node, created at session creation with the node's static
// shapes and attributes; holds a ConvKernel (primitive, reorders, packed weights) reused on every run.
#pragma once

#include <napi.h>

#include <memory>

#include "conv_kernel.h"

namespace switchyard {

class ConvPrimitive : public Napi::ObjectWrap<ConvPrimitive> {
 public:
  static Napi::Function Define(Napi::Env env);

  // [sync] new ConvPrimitive({inputDims, weightDims, group?, strides?, dilations?, padsBegin?, padsEnd?,
  //        hasBias?, fuseRelu?, activation?, activationAlpha?, activationBeta?, hasSum?, threads?, weights?, bias?,
  //        srcBlock?, dstBlock?, sumBlock? (caller layouts: 0 plain, 8/16 channel-blocked; sumBlock defaults to dstBlock),
  //        winograd? ('auto' | 'always' | 'never', default 'auto': see winograd_conv.h)}). Builds the oneDNN primitive and packs
  //        `weights`/`bias` when given (constant initializers). Throws a coded Error on bad options.
  explicit ConvPrimitive(const Napi::CallbackInfo& info);

  // [sync] ConvPrimitive.algorithm(options): 'winograd' | 'onednn', which one `new ConvPrimitive(options)`
  //        would run, without building anything (`weights` only needs to be present). Lets a kernel
  //        whose batch is unknown until run time report its algorithm in the placement.
  static Napi::Value Algorithm(const Napi::CallbackInfo& info);

 private:
  // [async] run(x, w | null, b | null, y, z?): Promise<void>. Convolves on the libuv pool; x/w/b/y/z stay
  //         referenced until the promise settles. w/b must be null when packed at construction;
  //         z (shaped like y) is required exactly when built with hasSum.
  Napi::Value Run(const Napi::CallbackInfo& info);
  // [sync] runSync(x, w | null, b | null, y, z?): void. Same, on the calling thread (for tiny convs).
  Napi::Value RunSync(const Napi::CallbackInfo& info);
  // [sync] dispose(): frees the primitive and packed weights once in-flight runs finish.
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  // [sync] getters.
  Napi::Value OutputDims(const Napi::CallbackInfo& info);
  Napi::Value Implementation(const Napi::CallbackInfo& info);
  Napi::Value Threads(const Napi::CallbackInfo& info);
  Napi::Value WeightsPacked(const Napi::CallbackInfo& info);
  // {src, dst}: the blocks (0 plain, 8/16, -1 other) of the layouts oneDNN chose (what avoids reorders).
  Napi::Value PrimitiveLayouts(const Napi::CallbackInfo& info);

  const ConvKernel& Kernel(Napi::Env env, const char* method) const;

  // Shared with in-flight batons so dispose() or GC never frees a kernel a worker is using.
  std::shared_ptr<const ConvKernel> kernel_;
};

}  // namespace switchyard
