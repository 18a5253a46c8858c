// switchyard_hip.node: registers the addon's functions and classes; nothing else lives here.
#include <napi.h>

#include "addon_data.h"
#include "device.h"
#include "device_buffer.h"
#include "elementwise.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new switchyard::AddonData();
  Napi::Function device_buffer = switchyard::DeviceBuffer::Define(env);
  data->device_buffer = Napi::Persistent(device_buffer);
  env.SetInstanceData(data);  // deleted by node-addon-api when the env goes away

  exports.Set("deviceCount", Napi::Function::New<switchyard::DeviceCount>(env, "deviceCount"));
  exports.Set("deviceProperties", Napi::Function::New<switchyard::DeviceProperties>(env, "deviceProperties"));
  exports.Set("runtimeInfo", Napi::Function::New<switchyard::RuntimeInfo>(env, "runtimeInfo"));
  exports.Set("elementwise", Napi::Function::New<switchyard::Elementwise>(env, "elementwise"));
  exports.Set("DeviceBuffer", device_buffer);
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_hip, Init)
