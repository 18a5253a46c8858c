#include "resize_taps.h"

#include <algorithm>
#include <cmath>

#include <switchyard/errors.h>

namespace switchyard {

ResizeMode ParseResizeMode(const std::string& name) {
  if (name == "nearest") return ResizeMode::kNearest;
  if (name == "linear") return ResizeMode::kLinear;
  if (name == "cubic") return ResizeMode::kCubic;
  throw CodedError("INVALID_ARGUMENT", "mode must be 'nearest', 'linear' or 'cubic', got '" + name + "'");
}

CoordinateMode ParseCoordinateMode(const std::string& name) {
  if (name == "half_pixel") return CoordinateMode::kHalfPixel;
  if (name == "half_pixel_symmetric") return CoordinateMode::kHalfPixelSymmetric;
  if (name == "pytorch_half_pixel") return CoordinateMode::kPytorchHalfPixel;
  if (name == "align_corners") return CoordinateMode::kAlignCorners;
  if (name == "asymmetric") return CoordinateMode::kAsymmetric;
  if (name == "tf_half_pixel_for_nn") return CoordinateMode::kTfHalfPixelForNn;
  if (name == "tf_crop_and_resize") return CoordinateMode::kTfCropAndResize;
  throw CodedError("INVALID_ARGUMENT",
                   "coordinateMode must be 'half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', "
                   "'asymmetric', 'tf_half_pixel_for_nn' or 'tf_crop_and_resize', got '" + name + "'");
}

NearestMode ParseNearestMode(const std::string& name) {
  if (name == "round_prefer_floor") return NearestMode::kRoundPreferFloor;
  if (name == "round_prefer_ceil") return NearestMode::kRoundPreferCeil;
  if (name == "floor") return NearestMode::kFloor;
  if (name == "ceil") return NearestMode::kCeil;
  if (name == "simple") return NearestMode::kSimple;
  throw CodedError("INVALID_ARGUMENT", "nearestMode must be 'round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil' or 'simple', got '" + name + "'");
}

namespace {

// JavaScript's Math.round (ties toward +infinity), which the TS kernel uses: floor(x + 0.5) differs
// from it for the double just below 0.5.
double RoundHalfUp(double x) {
  const double f = std::floor(x);
  return x - f >= 0.5 ? f + 1 : f;
}

// Output position j → source coordinate, per coordinate_transformation_mode.
double SourceCoordinate(int64_t j, int64_t in, int64_t out, double scale, double roiStart, double roiEnd, CoordinateMode mode) {
  const double x = static_cast<double>(j);
  switch (mode) {
    case CoordinateMode::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case CoordinateMode::kHalfPixelSymmetric: {
      // The output's centre lands on the input's centre even when floor(in * scale) cut the output short.
      const double adjustment = static_cast<double>(out) / (static_cast<double>(in) * scale);
      const double offset = static_cast<double>(in) / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case CoordinateMode::kPytorchHalfPixel:
      return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case CoordinateMode::kAlignCorners: {
      // The unrounded resized length, as the ONNX reference and onnxruntime use when scales are given.
      const double length = static_cast<double>(in) * scale;
      return length <= 1 ? 0 : x * static_cast<double>(in - 1) / (length - 1);
    }
    case CoordinateMode::kAsymmetric:
      return x / scale;
    case CoordinateMode::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case CoordinateMode::kTfCropAndResize: {
      const double span = static_cast<double>(in - 1);
      return out > 1 ? roiStart * span + x * (roiEnd - roiStart) * span / static_cast<double>(out - 1) : 0.5 * (roiStart + roiEnd) * span;
    }
  }
  return 0;
}

int64_t NearestIndex(double src, double scale, NearestMode mode) {
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(src == std::floor(src) + 0.5 ? std::floor(src) : RoundHalfUp(src));
    case NearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(RoundHalfUp(src));
    case NearestMode::kFloor:
      return static_cast<int64_t>(std::floor(src));
    case NearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(src));
    case NearestMode::kSimple:
      return static_cast<int64_t>(scale < 1 ? std::ceil(src) : std::floor(src));
  }
  return 0;
}

// Keys' cubic convolution kernel at distance |x|.
double CubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Distances are at most a few thousand taps apart even for absurd scales; the source coordinate of a
// finite scale stays within int range after the clamp below.
int32_t Clamp(int64_t i, int64_t in) { return static_cast<int32_t>(std::min(std::max<int64_t>(i, 0), in - 1)); }

// Zeroes the weights of taps outside the input and rescales the rest to sum to 1 (exclude_outside).
void ExcludeOutside(double* c, const int64_t* raw, int64_t n, int64_t in) {
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (raw[k] < 0 || raw[k] >= in) c[k] = 0;
    sum += c[k];
  }
  if (sum != 0) for (int64_t k = 0; k < n; ++k) c[k] /= sum;
}

// The antialiased filter (ONNX's reference): the kernel stretched by 1 / scale over 2 - 2 * start
// taps, normalized, centred so that the tap at the source coordinate's left neighbour has ratio in (0, 1].
// Returned as a double: a tiny scale asks for more taps than any integer type should hold.
double AntialiasTaps(double scale, ResizeMode mode) {
  const double radius = mode == ResizeMode::kLinear ? 1 : 2;
  return 2 - 2 * (std::floor(-radius / scale) + 1);
}

}  // namespace

AxisTaps ComputeAxisTaps(int64_t in, int64_t out, double scale, double roiStart, double roiEnd, const ResizeMethod& m) {
  AxisTaps t;
  const bool crop = m.coordinate == CoordinateMode::kTfCropAndResize;
  if (m.mode != ResizeMode::kNearest && in == out && scale == 1 && !crop) {
    t.identity = true;  // the TS kernel's rule: such an axis is left as it is
    return t;
  }
  const bool antialias = m.antialias && m.mode != ResizeMode::kNearest && scale < 1;
  const double taps = m.mode == ResizeMode::kNearest ? 1 : antialias ? AntialiasTaps(scale, m.mode) : m.mode == ResizeMode::kLinear ? 2 : 4;
  // Antialias taps grow as 1 / scale: bound the table (2^24 taps is a 64 MiB weight table).
  if (taps * static_cast<double>(out) > static_cast<double>(int64_t{1} << 24)) {
    throw CodedError("INVALID_ARGUMENT", "scale " + std::to_string(scale) + " needs " + std::to_string(taps) + " antialias taps for each of " +
                                             std::to_string(out) + " outputs (more than 2^24 in all)");
  }
  t.taps = static_cast<int64_t>(taps);
  t.index.resize(static_cast<size_t>(out * t.taps));
  t.weight.resize(t.index.size());
  if (crop) t.outside.assign(static_cast<size_t>(out), 0);
  std::vector<double> c(static_cast<size_t>(t.taps));
  std::vector<int64_t> raw(c.size());

  for (int64_t j = 0; j < out; ++j) {
    const double src = SourceCoordinate(j, in, out, scale, roiStart, roiEnd, m.coordinate);
    int32_t* index = &t.index[static_cast<size_t>(j * t.taps)];
    float* weight = &t.weight[static_cast<size_t>(j * t.taps)];
    if (crop && (src < 0 || src > static_cast<double>(in - 1))) {
      // Takes extrapolation_value; the tap only has to stay inside the input.
      t.outside[static_cast<size_t>(j)] = 1;
      weight[0] = 1;
      continue;
    }
    if (!std::isfinite(src) || std::fabs(src) > 4e9) throw CodedError("INVALID_ARGUMENT", "the source coordinate of output " + std::to_string(j) + " is not finite (scale or roi out of range)");
    if (m.mode == ResizeMode::kNearest) {
      index[0] = Clamp(NearestIndex(src, scale, m.nearest), in);
      weight[0] = 1;
      continue;
    }
    if (antialias) {
      // The left neighbour `base` has ratio = src - base in (0, 1] (an integer src counts from the one below).
      const double base = src == std::floor(src) ? src - 1 : std::floor(src);
      const double ratio = src - base;
      const int64_t start = 1 - t.taps / 2;
      const double s = scale;
      double sum = 0;
      for (int64_t k = 0; k < t.taps; ++k) {
        const double d = (static_cast<double>(start + k) - ratio) * s;
        c[k] = m.mode == ResizeMode::kLinear ? std::max(0.0, 1 - std::fabs(d)) : CubicKernel(d, m.cubicA);
        sum += c[k];
        raw[k] = static_cast<int64_t>(base) + start + k;
      }
      for (auto& v : c) v /= sum;
    } else if (m.mode == ResizeMode::kLinear) {
      // Clamped first, as the TS kernel: outside the input the edge value is repeated.
      const double s = std::min(std::max(src, 0.0), static_cast<double>(in - 1));
      const double i0 = std::floor(s);
      raw[0] = static_cast<int64_t>(i0);
      raw[1] = raw[0] + 1;
      c[0] = 1 - (s - i0);
      c[1] = s - i0;
    } else {
      const double i0 = std::floor(src);
      const double r = src - i0;
      // Keys' kernel at distances 1 + r, r, 1 - r, 2 - r from the four neighbours i0 - 1 .. i0 + 2.
      c[0] = CubicKernel(1 + r, m.cubicA);
      c[1] = CubicKernel(r, m.cubicA);
      c[2] = CubicKernel(1 - r, m.cubicA);
      c[3] = CubicKernel(2 - r, m.cubicA);
      for (int64_t k = 0; k < 4; ++k) raw[k] = static_cast<int64_t>(i0) - 1 + k;
    }
    if (m.excludeOutside && m.mode == ResizeMode::kCubic) ExcludeOutside(c.data(), raw.data(), t.taps, in);
    else if (m.excludeOutside && antialias) ExcludeOutside(c.data(), raw.data(), t.taps, in);
    for (int64_t k = 0; k < t.taps; ++k) {
      index[k] = Clamp(raw[k], in);
      weight[k] = static_cast<float>(c[k]);
    }
  }

  // Every output reading exactly one source with weight 1 (nearest; linear on whole-number coordinates,
  // as asymmetric halving): one tap does, and if that is the source itself, no pass at all.
  bool single = t.taps == 1;
  if (!single) {
    single = true;
    for (int64_t j = 0; j < out && single; ++j) {
      int64_t ones = 0, zeros = 0;
      for (int64_t k = 0; k < t.taps; ++k) {
        const float w = t.weight[static_cast<size_t>(j * t.taps + k)];
        ones += w == 1.0f;
        zeros += w == 0.0f;
      }
      single = ones == 1 && zeros == t.taps - 1;
    }
    if (single) {
      std::vector<int32_t> picked(static_cast<size_t>(out));
      for (int64_t j = 0; j < out; ++j)
        for (int64_t k = 0; k < t.taps; ++k)
          if (t.weight[static_cast<size_t>(j * t.taps + k)] == 1.0f) picked[static_cast<size_t>(j)] = t.index[static_cast<size_t>(j * t.taps + k)];
      t.taps = 1;
      t.index = std::move(picked);
      t.weight.assign(static_cast<size_t>(out), 1.0f);
    }
  }
  bool anyOutside = false;
  for (uint8_t o : t.outside) anyOutside = anyOutside || o;
  if (!anyOutside) t.outside.clear();
  if (single && in == out && !anyOutside) {
    bool same = true;
    for (int64_t j = 0; j < out && same; ++j) same = t.index[static_cast<size_t>(j)] == j;
    t.identity = same;
  }
  return t;
}

}  // namespace switchyard
