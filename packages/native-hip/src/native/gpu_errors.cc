#include "gpu_errors.h"

namespace switchyard {

std::string DescribeGpuStatus(const char* call, hipError_t status) {
  return std::string(call) + ": " + hipGetErrorName(status) + " (" + hipGetErrorString(status) + ")";
}

void ThrowGpuError(Napi::Env env, const char* call, hipError_t status) { ThrowJs(env, hipGetErrorName(status), DescribeGpuStatus(call, status)); }

CodedError GpuFailure(const char* call, hipError_t status) { return CodedError(hipGetErrorName(status), DescribeGpuStatus(call, status)); }

}  // namespace switchyard
