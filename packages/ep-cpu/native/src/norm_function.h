// JS functions for row-wise normalizations on oneDNN's vectorized primitives, over the last axis of
// a row-major [rows, cols] view: softmax (ONNX Softmax) and layer normalization.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] softmaxRows(x, y, rows, cols, threads?): y = softmax of each row of x. y may be x.
Napi::Value SoftmaxRowsJs(const Napi::CallbackInfo& info);

// [sync] layerNormRows(x, scale, bias | null, y, rows, cols, epsilon, threads?):
// y = (x - mean) / sqrt(var + epsilon) · scale + bias per row; scale/bias have cols elements.
Napi::Value LayerNormRowsJs(const Napi::CallbackInfo& info);

// [sync] skipLayerNormRows(a, b, scale, bias | null, y, sum | null, rows, cols, epsilon, threads?):
// s = a + b (same [rows, cols] shape), y = layer normalization of s's rows as layerNormRows does.
// `sum` receives s when given (another node reads the residual); else s lives in y (normalized in place).
Napi::Value SkipLayerNormRowsJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
