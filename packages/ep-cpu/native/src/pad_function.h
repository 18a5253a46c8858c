// JS function for ONNX Pad on tensors of any element type: constant, reflect, edge and wrap modes,
// negative pads cropping (the TS kernel's kernels/Pad.ts, natively). [sync].
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] pad(x, xDims, y, pads, mode, value, threads?): pads holds 2 · rank entries (all begins, then all
// ends); mode is 'constant' | 'reflect' | 'edge' | 'wrap'; value is a one-element typed array of x's type
// (the constant) or null (zero).
Napi::Value PadJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
