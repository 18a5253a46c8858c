#include "quantized_add.h"

#include <omp.h>

#include <algorithm>
#include <string>

#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include <switchyard/promise_worker.h>
#include "thread_count.h"

namespace switchyard {

namespace {

constexpr float kRoundMagic = 12582912.0f;  // rounds half to even below 2^22 (see quantize_kernels.cc)
constexpr int64_t kChunk = 16384;

template <typename A, typename B>
__attribute__((always_inline)) inline void AddRow(const A* a, const B* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) {
  const QuantRange r = RangeOf(p.output);
  const float lo = p.relu && p.yZero > r.lo ? p.yZero : r.lo;
  const float qlo = r.lo - p.yZero - 1.0f, qhi = r.hi - p.yZero + 1.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float fa = (static_cast<float>(a[i]) - p.aZero) * p.aScale;  // DequantizeLinear (8-bit: exact difference)
    const float fb = (static_cast<float>(b[i]) - p.bZero) * p.bScale;
    float s = fa + fb;                                                   // Add
    if (p.relu) s = s < 0.0f ? 0.0f : s;                                 // Relu
    float q = s / p.yScale;                                              // QuantizeLinear
    q = q < qlo ? qlo : q;
    q = q > qhi ? qhi : q;
    float v = ((q + kRoundMagic) - kRoundMagic) + p.yZero;
    v = v < lo ? lo : v;
    v = v > r.hi ? r.hi : v;
    v = v == v ? v : 0.0f;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
  }
}

#define SWITCHYARD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
SWITCHYARD_CLONES void AddUU(const uint8_t* a, const uint8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) { AddRow(a, b, n, p, y); }
SWITCHYARD_CLONES void AddUS(const uint8_t* a, const int8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) { AddRow(a, b, n, p, y); }
SWITCHYARD_CLONES void AddSU(const int8_t* a, const uint8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) { AddRow(a, b, n, p, y); }
SWITCHYARD_CLONES void AddSS(const int8_t* a, const int8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) { AddRow(a, b, n, p, y); }
#undef SWITCHYARD_CLONES

void AddChunk(const void* a, bool aSigned, const void* b, bool bSigned, int64_t start, int64_t n, const QuantizedAddParams& p, uint8_t* y) {
  const auto* au = static_cast<const uint8_t*>(a) + start;
  const auto* as = static_cast<const int8_t*>(a) + start;
  const auto* bu = static_cast<const uint8_t*>(b) + start;
  const auto* bs = static_cast<const int8_t*>(b) + start;
  if (!aSigned && !bSigned) AddUU(au, bu, n, p, y + start);
  else if (!aSigned) AddUS(au, bs, n, p, y + start);
  else if (!bSigned) AddSU(as, bu, n, p, y + start);
  else AddSS(as, bs, n, p, y + start);
}

}  // namespace

void QuantizedAdd(const void* a, bool aSigned, const void* b, bool bSigned, int64_t n, const QuantizedAddParams& params, void* y) {
  auto* out = static_cast<uint8_t*>(y);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n >= (int64_t{1} << 17) && omp_get_max_threads() > 1)
  for (int64_t c = 0; c < chunks; ++c) AddChunk(a, aSigned, b, bSigned, c * kChunk, std::min(kChunk, n - c * kChunk), params, out);
}

namespace {

struct QuantizedAddBaton {
  const void* a;
  bool aSigned;
  const void* b;
  bool bSigned;
  int64_t n;
  QuantizedAddParams params;
  void* y;
  int threads;
  const char* context;

  void Run() const {
    ThreadScope scope(threads);
    QuantizedAdd(a, aSigned, b, bSigned, n, params, y);
  }
  const char* Context() const { return context; }
};

float ScalarArg(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name) {
  const TypedView v = ExpectTypedArrayLazy(info.Env(), info[index], Allow(ElementType::kFloat32), 1, [&] { return std::string(ctx) + ": " + name; });
  return static_cast<const float*>(v.data)[0];
}

float ZeroArg(const Napi::CallbackInfo& info, size_t index, unsigned allowed, const char* ctx, const char* name) {
  const TypedView v = OptionalTypedArrayLazy(info.Env(), info[index], allowed, 1, [&] { return std::string(ctx) + ": " + name + " (one element of its tensor's type)"; });
  if (!v.data) return 0.0f;
  return v.type == ElementType::kInt8 ? static_cast<const int8_t*>(v.data)[0] : static_cast<const uint8_t*>(v.data)[0];
}

Napi::Value QuantizedAddCall(const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  const char* ctx = async ? "quantizedAddAsync" : "quantizedAdd";
  const TypedView a = ExpectTypedArrayLazy(env, info[0], kAnyInt8, -1, [&] { return std::string(ctx) + ": a"; });
  const int64_t n = static_cast<int64_t>(a.length);
  const TypedView b = ExpectTypedArrayLazy(env, info[3], kAnyInt8, n, [&] { return std::string(ctx) + ": b (a's length)"; });
  QuantizedAddParams p;
  p.aScale = ScalarArg(info, 1, ctx, "aScale");
  p.aZero = ZeroArg(info, 2, Allow(a.type), ctx, "aZero");
  p.bScale = ScalarArg(info, 4, ctx, "bScale");
  p.bZero = ZeroArg(info, 5, Allow(b.type), ctx, "bZero");
  p.yScale = ScalarArg(info, 6, ctx, "yScale");
  const TypedView y = ExpectTypedArrayLazy(env, info[8], kAnyInt8, n, [&] { return std::string(ctx) + ": y (a's length)"; });
  p.yZero = ZeroArg(info, 7, Allow(y.type), ctx, "yZero");
  p.output = y.type == ElementType::kInt8 ? QuantType::kInt8 : QuantType::kUint8;
  if (!info[9].IsBoolean()) ThrowJs(env, "INVALID_ARGUMENT", std::string(ctx) + ": relu must be a boolean", true);
  p.relu = info[9].As<Napi::Boolean>().Value();
  const int threads = ThreadsArgument(info[10], ctx);
  const QuantizedAddBaton baton{a.data, a.type == ElementType::kInt8, b.data, b.type == ElementType::kInt8, n, p, y.data, threads, ctx};
  if (async) return PromiseWorker<QuantizedAddBaton>::Queue(env, baton, {a.holder, b.holder, y.holder});
  GuardSync(env, ctx, [&] { baton.Run(); });
  return env.Undefined();
}

}  // namespace

Napi::Value QuantizedAddJs(const Napi::CallbackInfo& info) { return QuantizedAddCall(info, false); }
Napi::Value QuantizedAddAsyncJs(const Napi::CallbackInfo& info) { return QuantizedAddCall(info, true); }

}  // namespace switchyard
