// Loading libmigraphx_c.so with dlopen and asking it what it can parse. One library per process:
// the first successful load is kept (its handle is never closed, as MIGraphX registers global state).
#pragma once

#include <napi.h>

#include "migraphx_api.h"

namespace switchyard {

// [sync] loadLibrary(candidates: string[]) -> { loaded, path, realPath, version, error, attempts,
// operators, operatorsError, dataTypeError, optional: { quantizeBf16, exhaustiveTune } }. Tries each candidate in order (an absolute path, or a bare soname
// for the loader's search path) and keeps the first that loads and exports the C API entry points
// the EP needs. Never throws for a library that is absent or wrong: that is reported in `error`
// and `attempts`. Throws TypeError for bad arguments. Once one is kept, later calls report it.
Napi::Value LoadLibrary(const Napi::CallbackInfo& info);

// [sync] targetError(name: string) -> string | null: null when the kept library can create target
// `name` (migraphx_target_create), else why not. A MIGraphX built without the GPU backend has no
// 'gpu' target (it dlopens libmigraphx_<name>.so on demand), and that should be known at init,
// not at the first compile. Throws Error when no library is loaded, TypeError for a bad name.
Napi::Value TargetError(const Napi::CallbackInfo& info);

// The kept library's entry points, or nullptr before one is loaded. Never unloaded, so the pointer
// stays valid on worker threads.
const migraphx_api::Api* LoadedApi();

// The kept library's dlopen handle (its dependencies' symbols are reachable through it), or nullptr.
void* LoadedHandle();

}  // namespace switchyard
