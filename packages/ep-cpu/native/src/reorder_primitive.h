// JS class ReorderPrimitive: one per layout-boundary node and shape (plain ↔ channel-blocked);
// and preferredChannelBlock(), the block the CPU EP's blocked-layout pass uses.
#pragma once

#include <napi.h>

#include "kernel_wrap.h"
#include "reorder_kernel.h"

namespace switchyard {

class ReorderPrimitive : public KernelWrap<ReorderPrimitive, ReorderKernel> {
 public:
  static constexpr char kClass[] = "ReorderPrimitive";
  static Napi::Function Define(Napi::Env env);

  // [sync] new ReorderPrimitive({dims, fromBlock, toBlock, threads?}): dims are the logical
  //        [N, C, ...spatial]; blocks 0 (plain), 8 or 16. Throws a coded Error on bad options.
  explicit ReorderPrimitive(const Napi::CallbackInfo& info);

  // Its JS members are KernelWrap's, without the getters:
  // [async] run(x, y): Promise<void>.
  // [sync] runSync(x, y): void.
  // [sync] dispose()
};

// [sync] preferredChannelBlock(): number: 8 (AVX2), 16 (AVX-512), or 0 when convolutions keep plain layouts.
Napi::Value PreferredChannelBlockJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
