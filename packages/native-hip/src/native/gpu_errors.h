// Turning GPU runtime statuses into JavaScript errors that say which call failed and why.
#pragma once

#include <napi.h>

#include <switchyard/errors.h>

#include <string>

#include "vendor/gpu.h"

namespace switchyard {

// "hipMalloc: hipErrorOutOfMemory (out of memory)" -- the status name and the runtime's text.
std::string DescribeGpuStatus(const char* call, hipError_t status);

// Throws a JS Error whose `code` is the status name (e.g. 'hipErrorNoDevice'; 'cudaErrorNoDevice' on
// NVIDIA builds) so callers can branch without parsing the message.
[[noreturn]] void ThrowGpuError(Napi::Env env, const char* call, hipError_t status);

// The same failure as a CodedError (code = status name), for work off the JS thread (promise batons).
CodedError GpuFailure(const char* call, hipError_t status);

// Calls ThrowGpuError unless the status is hipSuccess.
inline void CheckGpu(Napi::Env env, const char* call, hipError_t status) {
  if (status != hipSuccess) ThrowGpuError(env, call, status);
}

}  // namespace switchyard
