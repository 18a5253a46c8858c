// The addon's modules. Each module (a folder or file under src/native) exports one function
//     namespace switchyard { void InitX(Napi::Env env, Napi::Object exports); }
// that sets its functions/classes on `exports` (and, when it needs a constructor for instanceof
// checks later, stores it in AddonData, which exists before any module runs).
//
// TO ADD A MODULE: add ONE line `SWITCHYARD_MODULE(InitX)` to the list below. The macro both
// declares the function and calls it; CMakeLists.txt globs the sources, so nothing else changes.
// Modules run in list order; keep one that others depend on (e.g. InitDeviceBuffer) above them.
// Test-only entries (kernelsJs) are not modules of the production addon: test_addon/main.cc adds them.
#include "modules.h"

#include "addon_data.h"

#define SWITCHYARD_MODULES(SWITCHYARD_MODULE) \
  SWITCHYARD_MODULE(InitDevice)               \
  SWITCHYARD_MODULE(InitDeviceBuffer)         \
  SWITCHYARD_MODULE(InitElementwise)          \
  SWITCHYARD_MODULE(InitRuntime)              \
  SWITCHYARD_MODULE(InitBlas)                 \
  SWITCHYARD_MODULE(InitDnn)                  \
  SWITCHYARD_MODULE(InitPlan)                 \
  /* add a line above this comment: SWITCHYARD_MODULE(InitYourModule) \ */

namespace switchyard {

#define SWITCHYARD_DECLARE_MODULE(name) void name(Napi::Env env, Napi::Object exports);
SWITCHYARD_MODULES(SWITCHYARD_DECLARE_MODULE)
#undef SWITCHYARD_DECLARE_MODULE

Napi::Object InitModules(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new AddonData());  // deleted by node-addon-api when the env goes away
#define SWITCHYARD_CALL_MODULE(name) name(env, exports);
  SWITCHYARD_MODULES(SWITCHYARD_CALL_MODULE)
#undef SWITCHYARD_CALL_MODULE
  return exports;
}

}  // namespace switchyard
