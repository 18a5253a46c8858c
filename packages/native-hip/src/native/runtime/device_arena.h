// DeviceArena: the caching arena (arena_core.h) over real device memory, one per EP instance and
// device, shared by the DeviceBuffers it hands out (each holds a shared_ptr, so the arena outlives
// its last buffer even when JS drops the DeviceArena object first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "arena_core.h"
#include "vendor/gpu.h"

namespace switchyard::runtime {

// Something that took device memory and wants it back when a DeviceBuffer is freed.
class DeviceMemoryOwner {
 public:
  virtual ~DeviceMemoryOwner() = default;
  virtual void ReleaseMemory(void* ptr) = 0;
};

// hipMalloc/hipFree on one device. hipFree waits for the device, so a released chunk is never
// still in use by queued work.
class DeviceBacking {
 public:
  explicit DeviceBacking(int device) : device_(device) {}
  BackingStatus Reserve(size_t bytes, uintptr_t* base, std::string* error);
  void Release(uintptr_t base, size_t bytes);
  int device() const { return device_; }

 private:
  int device_;
};

class DeviceArena : public DeviceMemoryOwner, public std::enable_shared_from_this<DeviceArena> {
 public:
  DeviceArena(int device, ArenaOptions options) : device_(device), core_(DeviceBacking(device), options) {}

  // Device memory or a failure (kOverLimit / kOutOfMemory carry a message naming size and limit).
  ArenaResult Allocate(size_t bytes) { return core_.Allocate(bytes); }
  // Frees memory obtained from Allocate. Stream-ordered use is safe: a block reused by a later
  // allocation is only touched by work queued after the work that used it before (one stream per device).
  void ReleaseMemory(void* ptr) override { core_.Free(reinterpret_cast<uintptr_t>(ptr)); }
  size_t Shrink() { return core_.Shrink(); }
  ArenaStats Stats() const { return core_.Stats(); }
  const ArenaOptions& options() const { return core_.options(); }
  int device() const { return device_; }

 private:
  int device_;
  ArenaCore<DeviceBacking> core_;
};

// The per-device arena with no limit, for library workspaces (cuBLAS/cuDNN/MIOpen) and for callers
// that have no arena of their own. Created on first use; lives for the process. Its chunks are the
// size asked for (kSameAsRequested: few, large blocks), and `defaultArenaStats` reports it to JS.
std::shared_ptr<DeviceArena> DefaultArena(int device);

}  // namespace switchyard::runtime
