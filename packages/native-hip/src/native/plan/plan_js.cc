// The plan part of the addon's exports: the ExecutionPlan class and the free functions beside it.
#include <napi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpu_errors.h"
#include "kernels/launch.h"
#include "plan/execution_plan.h"
#include "plan/host_bytes.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

// [sync] planStepOps() -> string[]: the step ops this build can run (the EP intersects its kernel
// table with it, so an op whose seam was compiled out is declined with a reason).
Napi::Value PlanStepOps(const Napi::CallbackInfo& info) {
  std::vector<std::string> names = StepOpNames();
  Napi::Array out = Napi::Array::New(info.Env(), names.size());
  for (uint32_t i = 0; i < names.size(); ++i) out.Set(i, Napi::String::New(info.Env(), names[i]));
  return out;
}

// [sync] planDeviceMemory(deviceId) -> { free, total }: the device's memory as the driver reports
// it (all processes), for benchmarks that report a peak without a profiler.
Napi::Value PlanDeviceMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int device = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device));
  size_t free_bytes = 0, total_bytes = 0;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemGetInfo), hipMemGetInfo(&free_bytes, &total_bytes));
  Napi::Object out = Napi::Object::New(env);
  out.Set("free", Napi::Number::New(env, static_cast<double>(free_bytes)));
  out.Set("total", Napi::Number::New(env, static_cast<double>(total_bytes)));
  return out;
}

// TF32 rounding of float32 bits: to nearest, ties to even, at 10 explicit mantissa bits; inf and NaN
// unchanged. The same as kernels/split_tf32.hip and ep-rocm's plan/split-tf32.ts.
uint32_t RoundTf32Bits(uint32_t u) { return (u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x0fffu + ((u >> 13) & 1u)) & 0xffffe000u; }

float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t FloatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// [sync] planSplitTf32(weights: Float32Array) -> Float32Array [lo | hi | hi] of 3 * length: the TF32
// parts of a 3xTF32 product's constant operand, hi = tf32(x), lo = tf32(x - hi) (ep-rocm
// plan/split-tf32.ts calls it at plan build). On a few threads: BERT-base's 85M weights took ~1.3 s
// as a JS loop.
Napi::Value PlanSplitTf32(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    ThrowJs(env, "INVALID_ARGUMENT", "planSplitTf32(weights): weights must be a Float32Array", true);
  }
  Napi::Float32Array src = info[0].As<Napi::Float32Array>();
  const size_t n = src.ElementLength();
  Napi::Float32Array out = Napi::Float32Array::New(env, 3 * n);
  const float* in = src.Data();
  float* dst = out.Data();
  const auto split = [in, dst, n](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t hi = RoundTf32Bits(FloatToBits(in[i]));
      const float hi_value = BitsToFloat(hi);
      dst[i] = BitsToFloat(RoundTf32Bits(FloatToBits(in[i] - hi_value)));  // x - hi is exact in float32
      dst[n + i] = hi_value;
      dst[2 * n + i] = hi_value;
    }
  };
  // At least 256K weights a thread: below that a thread costs more than it saves.
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), std::max<size_t>(1, n >> 18));
  const size_t chunk = (n + threads - 1) / std::max<size_t>(threads, 1);
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(split, std::min(n, t * chunk), std::min(n, (t + 1) * chunk));
  split(0, std::min(n, chunk));
  for (std::thread& w : workers) w.join();
  return out;
}

// [sync] nativeEnums() -> { unaryOps, binaryOps }: name -> number, from launch.h's op lists (the
// numbers plan step attributes carry; native-enums.generated.ts is checked against this).
Napi::Value NativeEnums(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  Napi::Object unary = Napi::Object::New(env);
  Napi::Object binary = Napi::Object::New(env);
  int next = 0;
#define SWITCHYARD_JS_ENTRY(name) unary.Set(#name, Napi::Number::New(env, next++));
  SWITCHYARD_UNARY_OPS(SWITCHYARD_JS_ENTRY)
#undef SWITCHYARD_JS_ENTRY
  next = 0;
#define SWITCHYARD_JS_ENTRY(name) binary.Set(#name, Napi::Number::New(env, next++));
  SWITCHYARD_BINARY_OPS(SWITCHYARD_JS_ENTRY)
#undef SWITCHYARD_JS_ENTRY
  out.Set("unaryOps", unary);
  out.Set("binaryOps", binary);
  return out;
}

}  // namespace
}  // namespace switchyard::plan

namespace switchyard {
void InitPlan(Napi::Env env, Napi::Object exports) {
  exports.Set("ExecutionPlan", plan::ExecutionPlan::Define(env));
  exports.Set("planStepOps", Napi::Function::New<plan::PlanStepOps>(env, "planStepOps"));
  exports.Set("planDeviceMemory", Napi::Function::New<plan::PlanDeviceMemory>(env, "planDeviceMemory"));
  exports.Set("planSplitTf32", Napi::Function::New<plan::PlanSplitTf32>(env, "planSplitTf32"));
  exports.Set("nativeEnums", Napi::Function::New<plan::NativeEnums>(env, "nativeEnums"));
}
}  // namespace switchyard
