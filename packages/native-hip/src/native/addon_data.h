// Per-environment state of the addon (Node may load it into several worker threads, each with its
// own env): constructors needed for instanceof checks. Set once in modules.cc (InitModules).
#pragma once

#include <napi.h>

namespace switchyard {

struct AddonData {
  Napi::FunctionReference device_buffer;
  Napi::FunctionReference stream;  // runtime/runtime_js.cc
  Napi::FunctionReference event;   // runtime/runtime_js.cc
  // Modules added later: add a member here (additive), set it in your InitX.
};

}  // namespace switchyard
