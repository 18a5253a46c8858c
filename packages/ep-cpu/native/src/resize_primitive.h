// JS class ResizePrimitive: one per Resize / Upsample node and input shape (resize_kernel.h).
#pragma once

#include <napi.h>

#include "kernel_wrap.h"
#include "resize_kernel.h"

namespace switchyard {

class ResizePrimitive : public KernelWrap<ResizePrimitive, ResizeKernel> {
 public:
  static constexpr char kClass[] = "ResizePrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ResizePrimitive({inputDims, outputDims, scales, roi?, mode?, coordinateMode?, nearestMode?,
  //        cubicCoeffA?, excludeOutside?, antialias?, extrapolationValue?, block?, threads?}). Computes every
  //        axis' source indices and weights now. Throws a coded Error on bad options.
  explicit ResizePrimitive(const Napi::CallbackInfo& info);

  // Its JS members are all KernelWrap's:
  // [async] run(x, y): Promise<void>. x/y stay referenced until the promise settles.
  // [sync] runSync(x, y): void.
  // [sync] dispose()
  // [sync] getters: outputDims (logical), implementation, threads.
};

}  // namespace switchyard
