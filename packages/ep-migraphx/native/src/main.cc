// switchyard_migraphx.node: registers the addon's functions; nothing else lives here.
#include <napi.h>

#include "hip_device.h"
#include "migraphx_library.h"
#include "migraphx_program.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("loadLibrary", Napi::Function::New<switchyard::LoadLibrary>(env, "loadLibrary"));
  exports.Set("targetError", Napi::Function::New<switchyard::TargetError>(env, "targetError"));
  exports.Set("hipDevices", Napi::Function::New<switchyard::hip_device::HipDevices>(env, "hipDevices"));
  switchyard::RegisterProgram(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_migraphx, Init)
