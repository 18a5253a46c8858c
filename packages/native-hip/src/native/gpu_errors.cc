#include "gpu_errors.h"

namespace switchyard {

std::string DescribeGpuStatus(const char* call, hipError_t status) {
  return std::string(call) + ": " + hipGetErrorName(status) + " (" + hipGetErrorString(status) + ")";
}

void ThrowGpuError(Napi::Env env, const char* call, hipError_t status) {
  Napi::Error error = Napi::Error::New(env, DescribeGpuStatus(call, status));
  error.Set("code", Napi::String::New(env, hipGetErrorName(status)));
  throw error;
}

}  // namespace switchyard
