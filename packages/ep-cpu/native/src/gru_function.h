// JS function of the GRU kernel (see gru_kernel.h): one ONNX GRU node per call.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] gruForward({seq, batch, input, hidden, direction?, linearBeforeReset?, threads?}, x, w, r, b, h0, y, yh): void.
// b, h0, y, yh may be null. Throws a coded TypeError on bad options or buffer lengths.
Napi::Value GruForwardJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
