// Device discovery: how many GPUs the runtime sees and what each one is. Every property is a
// runtime query (warp size included); nothing is assumed from the vendor.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] deviceCount() -> { count, status, message }. Never throws: "no device" is an answer, and
// the status (hipErrorNoDevice, hipErrorInsufficientDriver, ...) feeds the TS side's diagnosis.
Napi::Value DeviceCount(const Napi::CallbackInfo& info);

// [sync] deviceProperties(index) -> { index, name, arch, archName, totalMemory, computeUnits,
// warpSize, major, minor, pciBusId }. Throws RangeError for a bad index, Error (code = status
// name) when the runtime fails.
Napi::Value DeviceProperties(const Napi::CallbackInfo& info);

// [sync] runtimeInfo() -> { platform, runtime, runtimeVersion, driverVersion, compiledArchs }.
Napi::Value RuntimeInfo(const Napi::CallbackInfo& info);

}  // namespace switchyard
