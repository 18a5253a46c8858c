// JS functions of the GEMM-based recurrences (sgemm_recurrence.h): one ONNX GRU or RNN node per call.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] gruForward({seq, batch, input, hidden, direction?, linearBeforeReset?, threads?}, x, w, r, b, h0, y, yh): void.
// b, h0, y, yh may be null. Throws a coded TypeError on bad options or buffer lengths.
Napi::Value GruForwardJs(const Napi::CallbackInfo& info);

// [sync] rnnForward({seq, batch, input, hidden, direction?, activation?: 'tanh' | 'relu' | 'sigmoid', threads?}, x, w, r, b, h0, y, yh):
// void. b, h0, y, yh may be null.
Napi::Value RnnForwardJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
