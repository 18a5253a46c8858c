// switchyard_hip.node: registers the addon's modules (modules.cc); nothing else lives here.
#include <napi.h>

#include "modules.h"

namespace {

// NODE_API_MODULE pastes its argument into a name, so it takes this unqualified wrapper.
Napi::Object Init(Napi::Env env, Napi::Object exports) { return switchyard::InitModules(env, exports); }

}  // namespace

NODE_API_MODULE(switchyard_hip, Init)
