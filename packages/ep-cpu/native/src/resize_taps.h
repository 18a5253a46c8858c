// What ONNX Resize computes along one axis, independent of how the addon loops over a tensor: each
// output position maps to a source coordinate (coordinate_transformation_mode), then to a few source
// indices with weights (nearest: 1; linear: 2; cubic: 4; antialiased linear/cubic when downsampling:
// the filter stretched by 1 / scale, so more). A resize is separable, so a tensor's resize is one such
// 1-D resampling per scaled axis. Computed once per shape, in double, as the TS kernel does
// (src/nn/resize.ts), so that nearest picks the same source on every tie.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard {

enum class ResizeMode { kNearest, kLinear, kCubic };

enum class CoordinateMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};

// 'simple' is opset 10's / Upsample's rounding: ceil when downsampling, floor otherwise.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

// The attributes that shape every axis' taps.
struct ResizeMethod {
  ResizeMode mode = ResizeMode::kNearest;
  CoordinateMode coordinate = CoordinateMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;  // linear / cubic only; changes axes that shrink (scale < 1)
};

// ONNX's attribute spellings; each throws CodedError('INVALID_ARGUMENT') naming the accepted values.
ResizeMode ParseResizeMode(const std::string& name);
CoordinateMode ParseCoordinateMode(const std::string& name);
NearestMode ParseNearestMode(const std::string& name);

// One axis: output position j reads source indices index[j * taps + k] (clamped into the input) with
// weights weight[j * taps + k].
struct AxisTaps {
  int64_t taps = 1;
  std::vector<int32_t> index;
  std::vector<float> weight;
  // tf_crop_and_resize: 1 where output position j lies outside the input (it takes extrapolation_value).
  // Empty for other modes.
  std::vector<uint8_t> outside;
  // Output equals input along this axis: no pass is needed.
  bool identity = false;
};

// The taps of one axis resized from `inSize` to `outSize` with `scale` (out/in as the model states it;
// from sizes, outSize / inSize). `roiStart` / `roiEnd` are read for tf_crop_and_resize only.
AxisTaps ComputeAxisTaps(int64_t inSize, int64_t outSize, double scale, double roiStart, double roiEnd, const ResizeMethod& method);

}  // namespace switchyard
