// JS function for Softmax, LogSoftmax and Hardmax along any axis of a float32 tensor seen as
// [outer, len, inner] (opset 13+; opset < 13's 2-D coercion is inner = 1), with the TS kernel's rules
// (nn/softmax.ts): the max skips NaNs, Hardmax marks the first max. [sync].
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] softmax(x, y, outer, len, inner, kind, threads?): kind 'softmax' | 'logSoftmax' | 'hardmax';
// y may be x.
Napi::Value SoftmaxJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
