#include "nms_function.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <switchyard/errors.h>
#include "tensor_args.h"

namespace switchyard {

namespace {

constexpr int64_t kMaxSafe = 9007199254740991LL;

// Math.min / Math.max: NaN in gives NaN out (signed zeros cannot change an IoU test here).
double JsMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (b < a ? b : a); }
double JsMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (b > a ? b : a); }

template <typename T>
T* ExpectTyped(const Napi::CallbackInfo& info, size_t index, napi_typedarray_type type, int64_t length, const char* ctx, const char* name,
               const char* typeName) {
  if (!info[index].IsTypedArray() || info[index].As<Napi::TypedArray>().TypedArrayType() != type) {
    ThrowArgument(info.Env(), ctx, std::string(name) + " must be a " + typeName);
  }
  Napi::TypedArray a = info[index].As<Napi::TypedArray>();
  if (length >= 0 && static_cast<int64_t>(a.ElementLength()) != length) {
    ThrowArgument(info.Env(), ctx, std::string(name) + " must have " + std::to_string(length) + " elements, got " + std::to_string(a.ElementLength()));
  }
  return reinterpret_cast<T*>(static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset());
}

int64_t LengthOf(const Napi::CallbackInfo& info, size_t index) { return static_cast<int64_t>(info[index].As<Napi::TypedArray>().ElementLength()); }

}  // namespace

Napi::Value NmsSelectJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "nmsSelect";
  const double* corners = ExpectTyped<double>(info, 0, napi_float64_array, -1, ctx, "corners", "Float64Array");
  const int64_t boxes = LengthOf(info, 0) / 4;
  if (LengthOf(info, 0) % 4 != 0) ThrowArgument(env, ctx, "corners must have 4 entries per box");
  const double* areas = ExpectTyped<double>(info, 1, napi_float64_array, boxes, ctx, "areas", "Float64Array");
  const int64_t perBatch = ExpectInteger(info, 4, 0, kMaxSafe, ctx, "boxesPerBatch");
  const int64_t classes = ExpectInteger(info, 5, 0, kMaxSafe, ctx, "classes");
  const int64_t limit = ExpectInteger(info, 6, 0, kMaxSafe, ctx, "limit");
  if (!info[7].IsNumber()) ThrowArgument(env, ctx, "iouThreshold must be a number");
  const double threshold = info[7].As<Napi::Number>().DoubleValue();
  const int64_t batches = perBatch == 0 ? 0 : boxes / perBatch;
  if (batches * perBatch != boxes) ThrowArgument(env, ctx, "corners must hold whole batches of boxesPerBatch");
  if (perBatch == 0 && boxes != 0) ThrowArgument(env, ctx, "corners must hold whole batches of boxesPerBatch");
  const double lists = static_cast<double>(batches) * static_cast<double>(classes);
  if (lists * static_cast<double>(std::max<int64_t>(limit, perBatch)) > static_cast<double>(kMaxSafe)) ThrowArgument(env, ctx, "sizes are too large");
  const int64_t L = batches * classes;
  // Each list's candidates fit in boxesPerBatch slots: orders is exactly lists × boxesPerBatch long.
  const int32_t* orders = ExpectTyped<int32_t>(info, 2, napi_int32_array, L * perBatch, ctx, "orders", "Int32Array");
  const int64_t orderLength = L * perBatch;
  const int32_t* starts = ExpectTyped<int32_t>(info, 3, napi_int32_array, L + 1, ctx, "orderStarts", "Int32Array");
  int32_t* kept = ExpectTyped<int32_t>(info, 8, napi_int32_array, L * limit, ctx, "kept", "Int32Array");
  int32_t* keptCounts = ExpectTyped<int32_t>(info, 9, napi_int32_array, L, ctx, "keptCounts", "Int32Array");
  for (int64_t l = 0; l < L; l++) {
    if (starts[l] < 0 || starts[l] > starts[l + 1] || starts[l + 1] > orderLength) ThrowArgument(env, ctx, "orderStarts must rise within orders");
  }
  for (int64_t i = 0; i < (L > 0 ? starts[L] : 0); i++) {
    if (orders[i] < 0 || orders[i] >= perBatch) ThrowArgument(env, ctx, "orders must hold box indices below boxesPerBatch");
  }
  // Kept boxes' corners and areas side by side, so the inner loop reads them in sequence.
  std::vector<double> packed(static_cast<size_t>(std::min<int64_t>(limit, perBatch) * 5));
  for (int64_t l = 0; l < L; l++) {
    const int64_t base = (l / classes) * perBatch;
    int64_t nKept = 0;
    const int64_t cap = std::min<int64_t>(limit, perBatch);
    for (int64_t i = starts[l]; i < starts[l + 1] && nKept < cap; i++) {
      const int64_t s = orders[i];
      const double* p = corners + (base + s) * 4;
      const double areaP = areas[base + s];
      bool keep = true;
      for (int64_t k = 0; k < nKept; k++) {
        const double* q = packed.data() + k * 5;
        const double ih = JsMin(q[2], p[2]) - JsMax(q[0], p[0]);
        const double iw = JsMin(q[3], p[3]) - JsMax(q[1], p[1]);
        if (ih <= 0 || iw <= 0 || q[4] <= 0 || areaP <= 0) continue;
        const double inter = ih * iw;
        if (!(inter / (q[4] + areaP - inter) <= threshold)) {
          keep = false;
          break;
        }
      }
      if (keep) {
        double* q = packed.data() + nKept * 5;
        q[0] = p[0];
        q[1] = p[1];
        q[2] = p[2];
        q[3] = p[3];
        q[4] = areaP;
        kept[l * limit + nKept++] = static_cast<int32_t>(s);
      }
    }
    keptCounts[l] = static_cast<int32_t>(nKept);
  }
  return env.Undefined();
}

}  // namespace switchyard
