// RoiAlign, float32: average or max of bilinear samples on a regular grid inside each bin of each
// region (ONNX RoiAlign 10/16, onnxruntime's max rule). [sync], on the calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] roiAlign(x, rois, batchIndices, y, n, c, h, w, outH, outW, samplingRatio, spatialScale, max, halfPixel,
// threads?): x [n, c, h, w]; rois [r, 4] float32 as (x1, y1, x2, y2); batchIndices Int32Array [r], each in
// [0, n); y [r, c, outH, outW]. Sample positions, weights and sums are taken in double in the TS kernel's
// order, so y matches it bit for bit.
Napi::Value RoiAlignJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
