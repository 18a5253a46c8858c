// JS functions of the LSTM kernel (see lstm_kernel.h): one ONNX LSTM node per call.
#pragma once

#include <napi.h>

namespace switchyard {

// Options shared by all three: {seq, batch, input, hidden, direction?, clip?, threads?}
// (lstmPack ignores seq, batch, clip and threads).

// [sync] lstmForward(options, x, w, r, b, h0, c0, y, yh, yc): void — packs the weights on every call.
// b, h0, c0, y, yh, yc may be null. Throws a coded TypeError on bad options or buffer lengths.
Napi::Value LstmForwardJs(const Napi::CallbackInfo& info);

// [sync] lstmPack(options, w, r, b): Float32Array — the weights in the layout lstmForwardPacked reads;
// b may be null. Done once per node when the weights are constants.
Napi::Value LstmPackJs(const Napi::CallbackInfo& info);

// [sync] lstmForwardPacked(options, x, packed, h0, c0, y, yh, yc): void — h0, c0, y, yh, yc may be null.
Napi::Value LstmForwardPackedJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
