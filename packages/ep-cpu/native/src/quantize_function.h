// JS functions for the element-wise quantization ops (quantize_kernels.h). Each comes twice: the
// plain name runs on the calling thread [sync]; `...Async` queues the same work on the oneDNN thread
// and returns a Promise [async] (argument errors still throw synchronously). `threads` (last, optional)
// is the OpenMP team size (0 or absent: the default).
#pragma once

#include <napi.h>

namespace switchyard {

// dynamicQuantizeLinear(x: Float32Array, y: Uint8Array, scale: Float32Array(1), zeroPoint: Uint8Array(1),
// threads?): y = ONNX DynamicQuantizeLinear(x); its scale and zero point are written to `scale` and
// `zeroPoint`. y has x's length.
Napi::Value DynamicQuantizeLinearJs(const Napi::CallbackInfo& info);
Napi::Value DynamicQuantizeLinearAsyncJs(const Napi::CallbackInfo& info);

// quantizeLinear(x: Float32Array, scales: Float32Array(channels), zeroPoints: Uint8Array | Int8Array | null,
// y: Uint8Array | Int8Array, channels, inner, threads?): ONNX QuantizeLinear with x viewed as
// [outer, channels, inner] (channels 1: per tensor). zeroPoints, when given, has y's type and `channels` elements.
Napi::Value QuantizeLinearJs(const Napi::CallbackInfo& info);
Napi::Value QuantizeLinearAsyncJs(const Napi::CallbackInfo& info);

// dequantizeLinear(x: Uint8Array | Int8Array | Int32Array, scales: Float32Array(channels),
// zeroPoints: (x's type) | null, y: Float32Array, channels, inner, threads?): ONNX DequantizeLinear likewise.
Napi::Value DequantizeLinearJs(const Napi::CallbackInfo& info);
Napi::Value DequantizeLinearAsyncJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
