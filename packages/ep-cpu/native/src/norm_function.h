// JS functions for row-wise layer normalization on oneDNN's vectorized primitive (and RMS normalization on
// the addon's vector loops: oneDNN 2.6 has none), over the last axis of a row-major [rows, cols] view. (Softmax on any axis is softmax_function.h; the other normalizations,
// normalize_function.h.)
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] layerNormRows(x, scale, bias | null, y, rows, cols, epsilon, threads?):
// y = (x - mean) / sqrt(var + epsilon) · scale + bias per row; scale/bias have cols elements.
Napi::Value LayerNormRowsJs(const Napi::CallbackInfo& info);

// [sync] skipLayerNormRows(a, b, scale, bias | null, y, sum | null, rows, cols, epsilon, threads?):
// s = a + b (same [rows, cols] shape), y = layer normalization of s's rows as layerNormRows does.
// `sum` receives s when given (another node reads the residual); else s lives in y (normalized in place).
Napi::Value SkipLayerNormRowsJs(const Napi::CallbackInfo& info);

// [sync] rmsNormRows(x, scale, y, rows, cols, epsilon, threads?):
// y = x / sqrt(mean(x²) + epsilon) · scale per row (RMSNormalization, T5's and Llama's norm); scale has cols
// elements. The sum of squares is accumulated in double.
Napi::Value RmsNormRowsJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
