// Selecting the GPU that MIGraphX compiles for and runs on. MIGraphX's C API takes no device: the HIP
// runtime's current device decides, and HIP keeps it per thread (a new thread starts on device 0).
// The addon compiles, loads, saves and runs on libuv's pool threads, so each of those calls selects
// its program's device on its own thread first. hipSetDevice and hipGetDeviceCount are taken from the
// HIP runtime that MIGraphX itself loaded (never a second copy): first through the MIGraphX handle's
// dependencies, then from libamdhip64 already in the process (MIGraphX dlopens its GPU backend, and
// with it HIP, when the 'gpu' target is first created).
#pragma once

#include <napi.h>

#include <string>

namespace switchyard::hip_device {

// No device to select: host targets ('ref', 'cpu').
constexpr int kNoDevice = -1;

// Makes `device` the calling thread's current HIP device; nothing for kNoDevice. Throws CodedError
// (RUNTIME) when the HIP runtime cannot be found or hipSetDevice fails. Safe on any thread.
void Select(int device);

// [sync] hipDevices() -> { count: number | null, error: string | null }: how many GPUs the HIP
// runtime MIGraphX loaded sees, or why that cannot be known (no library loaded, no HIP runtime in
// the process, hipGetDeviceCount failed). Call after targetError('gpu') has created the target.
Napi::Value HipDevices(const Napi::CallbackInfo& info);

}  // namespace switchyard::hip_device
