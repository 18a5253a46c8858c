#include "roi_align_function.h"

#include <cmath>
#include <string>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include "parallel.h"
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;
// Samples per region beyond this (~200 MB of table: a giant box with sampling_ratio 0) are refused.
constexpr double kMaxSamples = 1 << 22;
constexpr int64_t kOutside = -1;  // the sample reads 0
constexpr int64_t kNaN = -2;      // a NaN position: the TS kernel reads undefined there, giving NaN

// Math.max: NaN wins, +0 beats -0.
double JsMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

struct Sample {
  int64_t corner[4];  // plane offsets, or kOutside / kNaN in corner[0]
  double weight[4];
};

}  // namespace

Napi::Value RoiAlignJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "roiAlign";
  const int64_t n = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "n");
  const int64_t c = ExpectInteger(info, 5, 0, kMaxSafe, ctx, "c");
  const int64_t h = ExpectInteger(info, 6, 1, kMaxSafe, ctx, "h");
  const int64_t w = ExpectInteger(info, 7, 1, kMaxSafe, ctx, "w");
  const int64_t outH = ExpectInteger(info, 8, 1, kMaxSafe, ctx, "outH");
  const int64_t outW = ExpectInteger(info, 9, 1, kMaxSafe, ctx, "outW");
  const int64_t ratio = ExpectInteger(info, 10, 0, kMaxSafe, ctx, "samplingRatio");
  if (!info[11].IsNumber()) ThrowArgument(env, ctx, "spatialScale must be a number");
  const double scale = info[11].As<Napi::Number>().DoubleValue();
  if (!info[12].IsBoolean() || !info[13].IsBoolean()) ThrowArgument(env, ctx, "max and halfPixel must be booleans");
  const bool maxMode = info[12].As<Napi::Boolean>().Value();
  const bool halfPixel = info[13].As<Napi::Boolean>().Value();
  const int threads = ReadThreadCount(info, 14, ctx);
  const double bins = static_cast<double>(outH) * static_cast<double>(outW);
  if (static_cast<double>(n) * static_cast<double>(c) * static_cast<double>(h) * static_cast<double>(w) > static_cast<double>(kMaxSafe) ||
      bins * static_cast<double>(c) > static_cast<double>(kMaxSafe) || static_cast<double>(ratio) * static_cast<double>(ratio) * bins > kMaxSamples) {
    ThrowArgument(env, ctx, "sizes are too large");
  }
  const ElementsView x = ExpectFloats(info, 0, n * c * h * w, ctx, "x");
  const ElementsView rois = ExpectFloats(info, 1, -1, ctx, "rois");
  if (rois.length % 4 != 0) ThrowArgument(env, ctx, "rois must have 4 entries per region");
  const int64_t R = rois.length / 4;
  if (!info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    ThrowArgument(env, ctx, "batchIndices must be an Int32Array");
  }
  Napi::Int32Array batchArray = info[2].As<Napi::Int32Array>();
  if (static_cast<int64_t>(batchArray.ElementLength()) != R) ThrowArgument(env, ctx, "batchIndices must have one entry per region");
  const int32_t* batch = batchArray.Data();
  for (int64_t i = 0; i < R; i++) {
    if (batch[i] < 0 || batch[i] >= n) ThrowArgument(env, ctx, "batch index " + std::to_string(batch[i]) + " is outside [0, n)");
  }
  if (static_cast<double>(R) * bins * static_cast<double>(c) > static_cast<double>(kMaxSafe)) ThrowArgument(env, ctx, "sizes are too large");
  const ElementsView y = ExpectFloats(info, 3, R * c * outH * outW, ctx, "y");
  // Regions whose sample table would be huge (sampling_ratio 0 and a giant box) are refused up front.
  const float* r = static_cast<const float*>(rois.data);
  const double offset = halfPixel ? 0.5 : 0;
  for (int64_t i = 0; i < R && ratio == 0; i++) {
    const double x0 = r[i * 4] * scale - offset, y0 = r[i * 4 + 1] * scale - offset;
    const double gh = std::ceil((r[i * 4 + 3] * scale - offset - y0) / static_cast<double>(outH));
    const double gw = std::ceil((r[i * 4 + 2] * scale - offset - x0) / static_cast<double>(outW));
    if ((gh > 0 && gw > 0 && gh * gw * bins > kMaxSamples)) ThrowArgument(env, ctx, "a region needs too many samples");
  }
  if (y.length == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(y.data);
    const int64_t HW = h * w, B = outH * outW;
    ParallelRanges(R, GrainFor(c * B * 64), [&](int64_t begin, int64_t end) {
      std::vector<Sample> table;
      for (int64_t i = begin; i < end; i++) {
        const double x0 = r[i * 4] * scale - offset;
        const double y0 = r[i * 4 + 1] * scale - offset;
        double rw = r[i * 4 + 2] * scale - offset - x0;
        double rh = r[i * 4 + 3] * scale - offset - y0;
        if (!halfPixel) {
          rw = JsMax(rw, 1);
          rh = JsMax(rh, 1);
        }
        const double binH = rh / static_cast<double>(outH), binW = rw / static_cast<double>(outW);
        const double gridH = ratio > 0 ? static_cast<double>(ratio) : std::ceil(rh / static_cast<double>(outH));
        const double gridW = ratio > 0 ? static_cast<double>(ratio) : std::ceil(rw / static_cast<double>(outW));
        const double count = JsMax(gridH * gridW, 1);
        // A reversed or NaN region has no samples (its count still divides, as in the TS kernel).
        // (Both positive means both finite: the size check above refused anything larger.)
        const bool sampled = gridH > 0 && gridW > 0;
        const int64_t sh = sampled ? static_cast<int64_t>(gridH) : 0, sw = sampled ? static_cast<int64_t>(gridW) : 0;
        table.resize(static_cast<size_t>(B * sh * sw));
        size_t s = 0;
        for (int64_t ph = 0; ph < outH; ph++) {
          for (int64_t pw = 0; pw < outW; pw++) {
            for (int64_t iy = 0; iy < sh; iy++) {
              const double yy = y0 + static_cast<double>(ph) * binH + ((static_cast<double>(iy) + 0.5) * binH) / gridH;
              for (int64_t ix = 0; ix < sw; ix++, s++) {
                const double xx = x0 + static_cast<double>(pw) * binW + ((static_cast<double>(ix) + 0.5) * binW) / gridW;
                Sample& t = table[s];
                if (std::isnan(yy) || std::isnan(xx)) {
                  t.corner[0] = kNaN;
                  continue;
                }
                if (yy < -1 || yy > static_cast<double>(h) || xx < -1 || xx > static_cast<double>(w)) {
                  t.corner[0] = kOutside;
                  continue;
                }
                double sy = yy <= 0 ? 0 : yy, sx = xx <= 0 ? 0 : xx;
                int64_t yl = static_cast<int64_t>(std::floor(sy)), xl = static_cast<int64_t>(std::floor(sx));
                int64_t yh = yl + 1, xh = xl + 1;
                if (yl >= h - 1) {
                  yl = yh = h - 1;
                  sy = static_cast<double>(yl);
                }
                if (xl >= w - 1) {
                  xl = xh = w - 1;
                  sx = static_cast<double>(xl);
                }
                const double ly = sy - static_cast<double>(yl), lx = sx - static_cast<double>(xl);
                const double hy = 1 - ly, hx = 1 - lx;
                t.corner[0] = yl * w + xl;
                t.corner[1] = yl * w + xh;
                t.corner[2] = yh * w + xl;
                t.corner[3] = yh * w + xh;
                t.weight[0] = hy * hx;
                t.weight[1] = hy * lx;
                t.weight[2] = ly * hx;
                t.weight[3] = ly * lx;
              }
            }
          }
        }
        const int64_t perBin = sh * sw;
        for (int64_t ch = 0; ch < c; ch++) {
          const float* p = in + (static_cast<int64_t>(batch[i]) * c + ch) * HW;
          float* dst = out + (i * c + ch) * B;
          const Sample* t = table.data();
          for (int64_t bin = 0; bin < B; bin++) {
            double acc = maxMode ? -INFINITY : 0;
            for (int64_t k = 0; k < perBin; k++, t++) {
              if (t->corner[0] < 0) {
                const double v = t->corner[0] == kNaN ? NAN : 0;
                acc = maxMode ? JsMax(acc, v) : acc + v;
                continue;
              }
              const double v0 = t->weight[0] * static_cast<double>(p[t->corner[0]]);
              const double v1 = t->weight[1] * static_cast<double>(p[t->corner[1]]);
              const double v2 = t->weight[2] * static_cast<double>(p[t->corner[2]]);
              const double v3 = t->weight[3] * static_cast<double>(p[t->corner[3]]);
              if (maxMode) acc = JsMax(acc, JsMax(JsMax(JsMax(v0, v1), v2), v3));
              else acc += v0 + v1 + v2 + v3;
            }
            dst[bin] = static_cast<float>(maxMode ? acc : acc / count);
          }
        }
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
