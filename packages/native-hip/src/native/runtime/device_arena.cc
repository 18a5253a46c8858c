#include "device_arena.h"

#include <map>
#include <mutex>

#include "gpu_errors.h"

namespace switchyard::runtime {

BackingStatus DeviceBacking::Reserve(size_t bytes, uintptr_t* base, std::string* error) {
  hipError_t status = hipSetDevice(device_);
  void* ptr = nullptr;
  if (status == hipSuccess) status = hipMalloc(&ptr, bytes);
  if (status != hipSuccess) {
    *error = DescribeGpuStatus(SWITCHYARD_GPU_NAME(hipMalloc), status);
    (void)hipGetLastError();  // clear the sticky-until-read error so the next call starts clean
    return status == hipErrorOutOfMemory ? BackingStatus::kOutOfMemory : BackingStatus::kError;
  }
  *base = reinterpret_cast<uintptr_t>(ptr);
  return BackingStatus::kOk;
}

void DeviceBacking::Release(uintptr_t base, size_t) {
  (void)hipSetDevice(device_);
  (void)hipFree(reinterpret_cast<void*>(base));
}

std::shared_ptr<DeviceArena> DefaultArena(int device) {
  static std::mutex mutex;
  // Leaked on purpose: destroying it at exit would call hipFree after the runtime shut down.
  static auto* arenas = new std::map<int, std::shared_ptr<DeviceArena>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& arena = (*arenas)[device];
  // Exact-size chunks: this arena holds a few large, long-lived blocks (a 32 MiB cuBLAS workspace
  // per plan stream, cuDNN/MIOpen workspaces), where doubling chunks would reserve up to twice what
  // the libraries hold -- memory the EP's gpuMemLimit count and session.memoryPlan cannot foresee.
  if (!arena) {
    ArenaOptions options;
    options.strategy = ExtendStrategy::kSameAsRequested;
    arena = std::make_shared<DeviceArena>(device, options);
  }
  return arena;
}

}  // namespace switchyard::runtime
