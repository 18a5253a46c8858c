#include "quantize_function.h"

#include <string>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include <switchyard/promise_worker.h>
#include "quantize_kernels.h"
#include "thread_count.h"

namespace switchyard {

namespace {

int ReadThreads(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  return ThreadsArgument(info[index], ctx);
}

// info[index] as a count in [1, 2^31-1].
int64_t ReadCount(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name) {
  const Napi::Value v = info[index];
  const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(d >= 1 && d <= 2147483647.0) || d != static_cast<double>(static_cast<int64_t>(d))) {
    ThrowJs(info.Env(), "INVALID_ARGUMENT", std::string(ctx) + ": " + name + " must be an integer in [1, 2^31-1]", true);
  }
  return static_cast<int64_t>(d);
}

// Runs `baton` here ([sync]) or on the oneDNN thread ([async]), keeping the JS buffers alive until it settles.
template <typename Baton>
Napi::Value Dispatch(Napi::Env env, bool async, Baton baton, std::initializer_list<Napi::Value> keepAlive) {
  if (async) return PromiseWorker<Baton>::Queue(env, std::move(baton), keepAlive);
  GuardSync(env, baton.Context(), [&] { baton.Run(); });
  return env.Undefined();
}

// The result of a call with nothing to do: undefined, or a resolved Promise for the [async] form.
Napi::Value NothingToDo(Napi::Env env, bool async) {
  if (!async) return env.Undefined();
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Resolve(env.Undefined());
  return deferred.Promise();
}

// Zero points of a uint8 / int8 / int32 typed array as int32 (an empty vector when absent).
std::vector<int32_t> ZeroPoints(const TypedView& view) {
  std::vector<int32_t> out(view.data ? view.length : 0);
  for (size_t i = 0; i < out.size(); ++i) {
    switch (view.type) {
      case ElementType::kUint8: out[i] = static_cast<const uint8_t*>(view.data)[i]; break;
      case ElementType::kInt8: out[i] = static_cast<const int8_t*>(view.data)[i]; break;
      case ElementType::kInt32: out[i] = static_cast<const int32_t*>(view.data)[i]; break;
      case ElementType::kFloat32: break;  // never allowed for zero points
    }
  }
  return out;
}

struct DynamicQuantizeBaton {
  const float* x;
  int64_t n;
  uint8_t* y;
  float* scale;
  uint8_t* zeroPoint;
  int threads;
  const char* context;

  void Run() const {
    ThreadScope scope(threads);
    float min = 0.0f, max = 0.0f;
    MinMaxWithZero(x, n, &min, &max);
    const QuantParams params = DynamicQuantParams(min, max);
    QuantizeTensor(x, n, params, QuantType::kUint8, y);
    *scale = params.scale;
    *zeroPoint = static_cast<uint8_t>(params.zeroPoint);
  }
  const char* Context() const { return context; }
};

Napi::Value DynamicQuantizeLinear(const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  const char* ctx = async ? "dynamicQuantizeLinearAsync" : "dynamicQuantizeLinear";
  const TypedView x = ExpectTypedArrayLazy(env, info[0], Allow(ElementType::kFloat32), -1, [&] { return std::string(ctx) + ": x"; });
  const int64_t n = static_cast<int64_t>(x.length);
  const TypedView y = ExpectTypedArrayLazy(env, info[1], Allow(ElementType::kUint8), n, [&] { return std::string(ctx) + ": y (x's length)"; });
  const TypedView scale = ExpectTypedArrayLazy(env, info[2], Allow(ElementType::kFloat32), 1, [&] { return std::string(ctx) + ": scale"; });
  const TypedView zp = ExpectTypedArrayLazy(env, info[3], Allow(ElementType::kUint8), 1, [&] { return std::string(ctx) + ": zeroPoint"; });
  const DynamicQuantizeBaton baton{static_cast<const float*>(x.data), n, static_cast<uint8_t*>(y.data), static_cast<float*>(scale.data),
                                   static_cast<uint8_t*>(zp.data), ReadThreads(info, 4, ctx), ctx};
  return Dispatch(env, async, baton, {x.holder, y.holder, scale.holder, zp.holder});
}

// The [outer, channels, inner] view of an element-wise op: `channels` and `inner` from info[4], info[5].
struct AxisView {
  int64_t outer;
  int64_t channels;
  int64_t inner;
};

AxisView ReadAxisView(const Napi::CallbackInfo& info, int64_t elements, const char* ctx) {
  const int64_t channels = ReadCount(info, 4, ctx, "channels"), inner = ReadCount(info, 5, ctx, "inner");
  if (channels * inner > elements || elements % (channels * inner) != 0) {
    ThrowJs(info.Env(), "INVALID_ARGUMENT",
            std::string(ctx) + ": x's " + std::to_string(elements) + " elements are not a whole number of " + std::to_string(channels) + " x " + std::to_string(inner) + " blocks",
            true);
  }
  return {elements / (channels * inner), channels, inner};
}

struct QuantizeBaton {
  const float* x;
  std::vector<float> scales;
  std::vector<int32_t> zeroPoints;
  void* y;
  AxisView view;
  QuantType type;
  int threads;
  const char* context;

  void Run() const {
    ThreadScope scope(threads);
    QuantizeAxis(x, view.outer, view.channels, view.inner, scales.data(), zeroPoints.empty() ? nullptr : zeroPoints.data(), type, y);
  }
  const char* Context() const { return context; }
};

Napi::Value QuantizeLinear(const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  const char* ctx = async ? "quantizeLinearAsync" : "quantizeLinear";
  const TypedView x = ExpectTypedArrayLazy(env, info[0], Allow(ElementType::kFloat32), -1, [&] { return std::string(ctx) + ": x"; });
  const int64_t n = static_cast<int64_t>(x.length);
  if (n == 0) return NothingToDo(env, async);
  const AxisView view = ReadAxisView(info, n, ctx);
  const TypedView scales = ExpectTypedArrayLazy(env, info[1], Allow(ElementType::kFloat32), view.channels, [&] { return std::string(ctx) + ": scales (one per channel)"; });
  const TypedView y = ExpectTypedArrayLazy(env, info[3], kAnyInt8, n, [&] { return std::string(ctx) + ": y (x's length)"; });
  const TypedView zp = OptionalTypedArrayLazy(env, info[2], Allow(y.type), view.channels, [&] { return std::string(ctx) + ": zeroPoints (y's type, one per channel)"; });
  const auto* s = static_cast<const float*>(scales.data);
  QuantizeBaton baton{static_cast<const float*>(x.data), std::vector<float>(s, s + view.channels), ZeroPoints(zp), y.data, view,
                      y.type == ElementType::kUint8 ? QuantType::kUint8 : QuantType::kInt8, ReadThreads(info, 6, ctx), ctx};
  return Dispatch(env, async, std::move(baton), {x.holder, y.holder});
}

struct DequantizeBaton {
  const void* x;
  DequantSource source;
  std::vector<float> scales;
  std::vector<int32_t> zeroPoints;
  float* y;
  AxisView view;
  int threads;
  const char* context;

  void Run() const {
    ThreadScope scope(threads);
    DequantizeAxis(x, source, view.outer, view.channels, view.inner, scales.data(), zeroPoints.empty() ? nullptr : zeroPoints.data(), y);
  }
  const char* Context() const { return context; }
};

Napi::Value DequantizeLinear(const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  const char* ctx = async ? "dequantizeLinearAsync" : "dequantizeLinear";
  const TypedView x = ExpectTypedArrayLazy(env, info[0], kAnyInt8 | Allow(ElementType::kInt32), -1, [&] { return std::string(ctx) + ": x"; });
  const int64_t n = static_cast<int64_t>(x.length);
  if (n == 0) return NothingToDo(env, async);
  const AxisView view = ReadAxisView(info, n, ctx);
  const TypedView scales = ExpectTypedArrayLazy(env, info[1], Allow(ElementType::kFloat32), view.channels, [&] { return std::string(ctx) + ": scales (one per channel)"; });
  const TypedView zp = OptionalTypedArrayLazy(env, info[2], Allow(x.type), view.channels, [&] { return std::string(ctx) + ": zeroPoints (x's type, one per channel)"; });
  const TypedView y = ExpectTypedArrayLazy(env, info[3], Allow(ElementType::kFloat32), n, [&] { return std::string(ctx) + ": y (x's length)"; });
  const DequantSource source = x.type == ElementType::kUint8 ? DequantSource::kUint8 : x.type == ElementType::kInt8 ? DequantSource::kInt8 : DequantSource::kInt32;
  const auto* s = static_cast<const float*>(scales.data);
  DequantizeBaton baton{x.data, source, std::vector<float>(s, s + view.channels), ZeroPoints(zp), static_cast<float*>(y.data), view, ReadThreads(info, 6, ctx), ctx};
  return Dispatch(env, async, std::move(baton), {x.holder, y.holder});
}

}  // namespace

Napi::Value DynamicQuantizeLinearJs(const Napi::CallbackInfo& info) { return DynamicQuantizeLinear(info, false); }
Napi::Value DynamicQuantizeLinearAsyncJs(const Napi::CallbackInfo& info) { return DynamicQuantizeLinear(info, true); }
Napi::Value QuantizeLinearJs(const Napi::CallbackInfo& info) { return QuantizeLinear(info, false); }
Napi::Value QuantizeLinearAsyncJs(const Napi::CallbackInfo& info) { return QuantizeLinear(info, true); }
Napi::Value DequantizeLinearJs(const Napi::CallbackInfo& info) { return DequantizeLinear(info, false); }
Napi::Value DequantizeLinearAsyncJs(const Napi::CallbackInfo& info) { return DequantizeLinear(info, true); }

}  // namespace switchyard
