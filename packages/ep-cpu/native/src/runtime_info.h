// runtimeInfo(): what the loaded oneDNN is and how it threads, for diagnostics and the placement.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] runtimeInfo(): {onednnVersion, threadingRuntime: 'omp', defaultThreads, cpuIsa}.
Napi::Value RuntimeInfo(const Napi::CallbackInfo& info);

}  // namespace switchyard
