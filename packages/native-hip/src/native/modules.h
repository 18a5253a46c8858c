// The addon's modules, registered in one call: switchyard_hip.node (main.cc) and the test addon
// (test_addon/main.cc) both start from the same list, kept in modules.cc.
#pragma once

#include <napi.h>

namespace switchyard {

// Creates the env's AddonData, then runs every module's InitX on `exports`.
Napi::Object InitModules(Napi::Env env, Napi::Object exports);

}  // namespace switchyard
