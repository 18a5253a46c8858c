// JS function lstmForward: a whole ONNX LSTM node (the common case; see lstm_kernel.h) in one call.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] lstmForward({seq, batch, input, hidden, direction?, clip?, threads?}, x, w, r, b, h0, c0, y, yh, yc): void.
// b, h0, c0, y, yh, yc may be null. Throws a coded TypeError on bad options or buffer lengths.
Napi::Value LstmForwardJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
