#include "device.h"

#include <string>

#include "gpu_errors.h"
#include "vendor/gpu.h"

#ifndef SWITCHYARD_GPU_ARCHS
#define SWITCHYARD_GPU_ARCHS ""
#endif

namespace switchyard {
namespace {

// AMD reports "gfx90a:sramecc+:xnack-"; the part before the first ':' names the ISA kernels are
// compiled for, the rest are target features.
std::string ArchOf(const hipDeviceProp_t& prop) {
#if SWITCHYARD_GPU_ARCH_FROM_GCN
  std::string full(prop.gcnArchName);
  return full.substr(0, full.find(':'));
#else
  return "sm_" + std::to_string(prop.major * 10 + prop.minor);
#endif
}

std::string ArchNameOf(const hipDeviceProp_t& prop) {
#if SWITCHYARD_GPU_ARCH_FROM_GCN
  return std::string(prop.gcnArchName);
#else
  return ArchOf(prop);
#endif
}

Napi::Array SplitArchs(Napi::Env env, const std::string& list) {
  Napi::Array out = Napi::Array::New(env);
  size_t start = 0;
  uint32_t n = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.Set(n++, Napi::String::New(env, list.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

}  // namespace

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int count = 0;
  hipError_t status = hipGetDeviceCount(&count);
  // Drain the sticky "last error" so a later, unrelated check does not report this one.
  (void)hipGetLastError();
  Napi::Object result = Napi::Object::New(env);
  result.Set("count", Napi::Number::New(env, status == hipSuccess ? count : 0));
  result.Set("status", Napi::String::New(env, hipGetErrorName(status)));
  result.Set("message", Napi::String::New(env, hipGetErrorString(status)));
  return result;
}

Napi::Value DeviceProperties(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    ThrowJs(env, "INVALID_ARGUMENT", "deviceProperties(index): index must be a number", true);
  }
  const double requested = info[0].As<Napi::Number>().DoubleValue();
  int count = 0;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipGetDeviceCount), hipGetDeviceCount(&count));
  if (!(requested >= 0) || requested >= count || requested != static_cast<int>(requested)) {
    ThrowJsRange(env, "INVALID_ARGUMENT", "deviceProperties(index): index " + std::to_string(requested) + " is not in [0, " +
                                         std::to_string(count) + ")");
  }
  const int index = static_cast<int>(requested);
  hipDeviceProp_t prop{};
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipGetDeviceProperties), hipGetDeviceProperties(&prop, index));

  Napi::Object result = Napi::Object::New(env);
  result.Set("index", Napi::Number::New(env, index));
  result.Set("name", Napi::String::New(env, prop.name));
  result.Set("arch", Napi::String::New(env, ArchOf(prop)));
  result.Set("archName", Napi::String::New(env, ArchNameOf(prop)));
  // Bytes as a double: exact up to 2^53, far beyond any device memory.
  result.Set("totalMemory", Napi::Number::New(env, static_cast<double>(prop.totalGlobalMem)));
  result.Set("computeUnits", Napi::Number::New(env, prop.multiProcessorCount));
  result.Set("warpSize", Napi::Number::New(env, prop.warpSize));
  result.Set("major", Napi::Number::New(env, prop.major));
  result.Set("minor", Napi::Number::New(env, prop.minor));
  result.Set("pciBusId", Napi::Number::New(env, prop.pciBusID));
  return result;
}

Napi::Value RuntimeInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("platform", Napi::String::New(env, SWITCHYARD_GPU_PLATFORM_NAME));
  result.Set("runtime", Napi::String::New(env, SWITCHYARD_GPU_RUNTIME_NAME));
  int runtimeVersion = 0;
  int driverVersion = 0;
  // Either query may fail on a machine without a driver; 0 then means "unknown".
  if (hipRuntimeGetVersion(&runtimeVersion) != hipSuccess) runtimeVersion = 0;
  if (hipDriverGetVersion(&driverVersion) != hipSuccess) driverVersion = 0;
  (void)hipGetLastError();
  result.Set("runtimeVersion", Napi::Number::New(env, runtimeVersion));
  result.Set("driverVersion", Napi::Number::New(env, driverVersion));
  result.Set("compiledArchs", SplitArchs(env, SWITCHYARD_GPU_ARCHS));
  return result;
}

void InitDevice(Napi::Env env, Napi::Object exports) {
  exports.Set("deviceCount", Napi::Function::New<DeviceCount>(env, "deviceCount"));
  exports.Set("deviceProperties", Napi::Function::New<DeviceProperties>(env, "deviceProperties"));
  exports.Set("runtimeInfo", Napi::Function::New<RuntimeInfo>(env, "runtimeInfo"));
}

}  // namespace switchyard
