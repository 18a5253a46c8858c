// JS function geluErf: y = x · Φ(x) (com.microsoft Gelu, erf form) on oneDNN's vectorized eltwise.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] geluErf(x: Float32Array, y: Float32Array, threads?: number): void. x and y have equal
// lengths (they may be the same array). Throws a coded TypeError on bad arguments.
Napi::Value GeluErfJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
