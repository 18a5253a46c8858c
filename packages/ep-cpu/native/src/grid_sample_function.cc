#include "grid_sample_function.h"

#include <algorithm>
#include <cmath>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;
// Output points per task: their taps (≤ 16 each) are tabled once and swept over every channel.
constexpr int64_t kBlock = 256;

enum Mode { kLinear = 0, kNearest = 1, kCubic = 2 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

double Unnormalize(double coord, int64_t size, bool align) {
  const double s = static_cast<double>(size);
  return align ? ((coord + 1) / 2) * (s - 1) : ((coord + 1) * s - 1) / 2;
}

// Mirrors x into [twiceLow/2, twiceHigh/2]; fmod is JS's % on doubles, so this matches grid-coords.ts.
double Reflect(double x, double twiceLow, double twiceHigh) {
  if (twiceLow == twiceHigh) return 0;
  const double min = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
  const double d = std::fabs(x - min);
  const double extra = std::fmod(d, span);
  const double flips = std::floor(d / span);
  return std::fmod(flips, 2.0) == 0 ? extra + min : span - extra + min;
}

// Math.min / Math.max semantics: NaN in gives NaN out.
double Clip(double x, int64_t size) {
  if (std::isnan(x)) return x;
  return std::min(static_cast<double>(size - 1), std::max(x, 0.0));
}

double Pad(double x, int64_t size, int padding, bool align) {
  if (padding == kBorder) return Clip(x, size);
  if (padding == kReflection) {
    const double s = static_cast<double>(size);
    return Clip(align ? Reflect(x, 0, 2 * (s - 1)) : Reflect(x, -1, 2 * s - 1), size);
  }
  return x;
}

void CubicWeights(double t, double* w) {
  const double A = -0.75;
  auto near = [&](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
  auto far = [&](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// One dim's taps for pixel position p; returns how many. Indices stay double so that NaN and huge
// positions fail the range test instead of overflowing an integer.
int Taps(int mode, double p, int64_t size, int padding, bool align, double* idx, double* w) {
  if (mode == kCubic) {
    const double f = std::floor(p);
    CubicWeights(p - f, w);
    for (int k = 0; k < 4; k++) idx[k] = Pad(f - 1 + k, size, padding, align);
    return 4;
  }
  const double s = Pad(p, size, padding, align);
  if (mode == kNearest) {
    idx[0] = std::nearbyint(s);  // half to even, as the TS kernel's roundHalfToEven
    w[0] = 1;
    return 1;
  }
  const double f = std::floor(s);
  idx[0] = f;
  idx[1] = f + 1;
  w[1] = s - f;
  w[0] = 1 - w[1];
  return 2;
}

}  // namespace

Napi::Value GridSampleJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "gridSample";
  const int64_t n = ExpectInteger(info, 3, 0, kMaxSafe, ctx, "n");
  const int64_t c = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "c");
  const int64_t h = ExpectInteger(info, 5, 1, kMaxSafe, ctx, "h");
  const int64_t w = ExpectInteger(info, 6, 1, kMaxSafe, ctx, "w");
  const int64_t outH = ExpectInteger(info, 7, 0, kMaxSafe, ctx, "outH");
  const int64_t outW = ExpectInteger(info, 8, 0, kMaxSafe, ctx, "outW");
  const int mode = static_cast<int>(ExpectInteger(info, 9, 0, 2, ctx, "mode"));
  const int padding = static_cast<int>(ExpectInteger(info, 10, 0, 2, ctx, "padding"));
  if (!info[11].IsBoolean()) ThrowArgument(env, ctx, "alignCorners must be a boolean");
  const bool align = info[11].As<Napi::Boolean>().Value();
  const int threads = ReadThreadCount(info, 12, ctx);
  const double plane = static_cast<double>(h) * static_cast<double>(w);
  const double points = static_cast<double>(outH) * static_cast<double>(outW);
  if (static_cast<double>(n) * static_cast<double>(c) * plane > static_cast<double>(kMaxSafe) ||
      static_cast<double>(n) * static_cast<double>(c) * points > static_cast<double>(kMaxSafe) ||
      static_cast<double>(n) * points * 2 > static_cast<double>(kMaxSafe)) {
    ThrowArgument(env, ctx, "sizes are too large");
  }
  const ElementsView x = ExpectFloats(info, 0, n * c * h * w, ctx, "x");
  const ElementsView grid = ExpectFloats(info, 1, n * outH * outW * 2, ctx, "grid");
  const ElementsView y = ExpectFloats(info, 2, n * c * outH * outW, ctx, "y");
  const int64_t P = outH * outW, HW = h * w;
  if (y.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const auto* in = static_cast<const float*>(x.data);
    const auto* g = static_cast<const float*>(grid.data);
    auto* out = static_cast<float*>(y.data);
    const int64_t blocks = (P + kBlock - 1) / kBlock;
    const int perPoint = mode == kCubic ? 16 : mode == kLinear ? 4 : 1;
    ParallelRanges(n * blocks, GrainFor(kBlock * c * perPoint * 4), [&](int64_t begin, int64_t end) {
      int64_t offsets[kBlock * 16];
      double weights[kBlock * 16];
      int counts[kBlock];
      for (int64_t item = begin; item < end; item++) {
        const int64_t b = item / blocks, o0 = (item % blocks) * kBlock, len = std::min(kBlock, P - o0);
        for (int64_t j = 0; j < len; j++) {
          const float* gp = g + (b * P + o0 + j) * 2;
          double rowIdx[4], rowW[4], colIdx[4], colW[4];
          // grid lists x (the column) first; rows are the outer taps, as in the TS kernel.
          const int rows = Taps(mode, Unnormalize(gp[1], h, align), h, padding, align, rowIdx, rowW);
          const int cols = Taps(mode, Unnormalize(gp[0], w, align), w, padding, align, colIdx, colW);
          int count = 0;
          for (int r = 0; r < rows; r++) {
            if (!(rowIdx[r] >= 0 && rowIdx[r] < static_cast<double>(h))) continue;
            for (int q = 0; q < cols; q++) {
              if (!(colIdx[q] >= 0 && colIdx[q] < static_cast<double>(w))) continue;
              offsets[j * 16 + count] = static_cast<int64_t>(rowIdx[r]) * w + static_cast<int64_t>(colIdx[q]);
              weights[j * 16 + count] = rowW[r] * colW[q];
              count++;
            }
          }
          counts[j] = count;
        }
        for (int64_t ch = 0; ch < c; ch++) {
          const float* src = in + (b * c + ch) * HW;
          float* dst = out + (b * c + ch) * P + o0;
          for (int64_t j = 0; j < len; j++) {
            double v = 0;
            for (int k = 0; k < counts[j]; k++) v += weights[j * 16 + k] * static_cast<double>(src[offsets[j * 16 + k]]);
            dst[j] = static_cast<float>(v);
          }
        }
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
