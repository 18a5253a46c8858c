#include "hip_device.h"

#include <dlfcn.h>

#include <mutex>

#include <switchyard/errors.h>

#include "migraphx_library.h"

namespace switchyard::hip_device {
namespace {

// hipError_t is an int enum; 0 is hipSuccess.
using SetDeviceFn = int (*)(int);
using GetDeviceCountFn = int (*)(int*);

struct HipFunctions {
  SetDeviceFn set_device = nullptr;
  GetDeviceCountFn get_device_count = nullptr;
};

std::mutex g_mutex;
HipFunctions g_hip;  // guarded by g_mutex; once both are found they are never replaced

// Sonames of the HIP runtime, newest first; RTLD_NOLOAD only finds one already loaded.
const char* const kHipSonames[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so"};

bool Bind(void* handle, HipFunctions* out) {
  if (handle == nullptr) return false;
  auto set = reinterpret_cast<SetDeviceFn>(dlsym(handle, "hipSetDevice"));
  auto count = reinterpret_cast<GetDeviceCountFn>(dlsym(handle, "hipGetDeviceCount"));
  if (set == nullptr || count == nullptr) return false;
  out->set_device = set;
  out->get_device_count = count;
  return true;
}

// The functions, resolved on first use; "" in `why` when found.
HipFunctions Functions(std::string* why) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_hip.set_device != nullptr) return g_hip;
  void* migraphx = LoadedHandle();
  if (migraphx == nullptr) {
    *why = "no MIGraphX library is loaded";
    return g_hip;
  }
  if (Bind(migraphx, &g_hip)) return g_hip;
  for (const char* soname : kHipSonames) {
    void* hip = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    // The reference dlopen took is dropped at once: MIGraphX's own reference keeps the library loaded.
    const bool found = Bind(hip, &g_hip);
    if (hip != nullptr) dlclose(hip);
    if (found) return g_hip;
  }
  *why = "the HIP runtime (hipSetDevice, hipGetDeviceCount) is not loaded in this process: MIGraphX has not loaded its GPU backend";
  return g_hip;
}

}  // namespace

void Select(int device) {
  if (device == kNoDevice) return;
  std::string why;
  const HipFunctions hip = Functions(&why);
  if (hip.set_device == nullptr) throw CodedError("RUNTIME", "cannot select GPU " + std::to_string(device) + ": " + why);
  const int status = hip.set_device(device);
  if (status != 0) throw CodedError("RUNTIME", "hipSetDevice(" + std::to_string(device) + ") failed with hipError " + std::to_string(status));
}

Napi::Value HipDevices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  std::string why;
  const HipFunctions hip = Functions(&why);
  int count = 0;
  if (hip.get_device_count != nullptr) {
    const int status = hip.get_device_count(&count);
    if (status != 0) why = "hipGetDeviceCount failed with hipError " + std::to_string(status);
  }
  result.Set("count", why.empty() ? Napi::Value(Napi::Number::New(env, count)) : env.Null());
  result.Set("error", why.empty() ? env.Null() : Napi::Value(Napi::String::New(env, why)));
  return result;
}

}  // namespace switchyard::hip_device
