// JS glue shared by DeviceArena and the test hook's FakeArena: options in, stats out, and the
// OUT_OF_MEMORY error. Templated on nothing but the core's plain types.
#pragma once

#include <napi.h>

#include <string>

#include "arena_core.h"

namespace switchyard::runtime {

// Reads { gpuMemLimit?, arenaExtendStrategy?, initialChunkBytes? }; throws TypeError/RangeError
// naming the bad field.
ArenaOptions ParseArenaOptions(Napi::Env env, const Napi::Value& value, const char* where);

// { inUse, reserved, peak, allocations, frees, chunks, largestFree }
Napi::Object ArenaStatsToJs(Napi::Env env, const ArenaStats& stats);

// Throws Error with code 'OUT_OF_MEMORY' (over the limit or the driver's OOM) or 'GPU_ERROR',
// carrying requestedBytes and limitBytes as properties too.
[[noreturn]] void ThrowArenaFailure(Napi::Env env, const char* where, size_t requested, const ArenaOptions& options,
                                    const ArenaResult& result);

// A byte count from JS: a non-negative integer below 2^48.
size_t ByteCountArg(Napi::Env env, const Napi::Value& value, const char* what);

}  // namespace switchyard::runtime
