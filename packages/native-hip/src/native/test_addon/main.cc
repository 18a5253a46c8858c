// switchyard_hip_test.node: the production addon's modules plus the entries only tests call
// (kernelsJs, kernels_js.cc). CMakeLists.txt builds it as a target of its own beside
// switchyard_hip.node, from the same objects; it is never published (package.json `files` leaves
// this folder out, and scripts/fill-prebuilt.mjs copies only the production addon).
#include <napi.h>

#include "modules.h"

namespace switchyard {
void InitKernelsJs(Napi::Env env, Napi::Object exports);
}  // namespace switchyard

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  switchyard::InitModules(env, exports);
  switchyard::InitKernelsJs(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_hip_test, Init)
