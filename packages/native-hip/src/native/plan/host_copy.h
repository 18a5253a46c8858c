// Host<->device copies of a plan's host-bound inputs and outputs through the plan's own pinned
// "mirror" of each slot: the DMA runs on the plan's stream, ordered with the steps, so a run needs
// one synchronization in all (the runtime's shared staging path waits once per copy, and its copies
// sit on another stream). The host-side memcpy between the JS array and the mirror is split over a
// few threads for large slots (one thread's memcpy, ~8-10 GB/s, is slower than the DMA).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "vendor/gpu.h"

namespace switchyard::plan {

// Most threads, and slices, one copy is split over.
constexpr size_t kMaxCopyThreads = 4;
constexpr size_t kMaxCopySlices = 16;

// A slot's pinned mirror, with one event per slice for the output drain.
struct HostMirror {
  void* host = nullptr;
  hipEvent_t slice_done[kMaxCopySlices] = {};
};

class HostMirrors {
 public:
  HostMirrors() = default;
  HostMirrors(const HostMirrors&) = delete;
  HostMirrors& operator=(const HostMirrors&) = delete;
  ~HostMirrors() { Release(); }

  // Pinned memory of `bytes` for slot `index`, made on first use; nullptr when the plan's mirrors
  // would pass kMaxBytes or the allocation fails (the caller then takes the runtime's staging path).
  HostMirror* Get(size_t index, size_t bytes);
  void Release();

  // Most pinned bytes one plan keeps (pinned memory is a scarce, unswappable host resource).
  static constexpr size_t kMaxBytes = size_t{256} << 20;

 private:
  std::vector<std::unique_ptr<HostMirror>> blocks_;  // by pointer: Get's callers hold them across growth
  size_t total_ = 0;
};

// Copies `bytes` of pageable host memory into the pinned `mirror` and queues its DMA to `device_dst`
// on `stream`, in slices on a few threads for large copies, so a slice's DMA overlaps the memcpy of
// the next. Returns once every slice is queued (not copied: the stream orders it before later work).
hipError_t QueueHostToDevice(int device, hipStream_t stream, void* device_dst, void* mirror, const void* src, size_t bytes);

// Queues the DMA of `bytes` from device memory into `mirror` on `stream`, slice by slice, each slice
// followed by its event (the slices DrainDeviceToHost copies out).
hipError_t QueueDeviceToHost(hipStream_t stream, HostMirror* mirror, const void* device_src, size_t bytes);

// Copies the mirror into pageable `dst` slice by slice as each slice's DMA is done, so the memcpy of
// one slice overlaps the DMA of the next: on a few threads for large copies, on the caller's alone
// under 4 MiB. Returns when `dst` holds every byte.
hipError_t DrainDeviceToHost(int device, void* dst, const HostMirror* mirror, size_t bytes);

// Writes one byte per 4 KiB page of `dst`, over a few threads when large: memory a JS array got
// fresh from the OS faults on first touch (a fault and a zeroed page per 4 KiB), which costs as
// much as the copy itself -- done while the GPU still runs the steps, it is off the critical path.
void TouchPages(void* dst, size_t bytes);

}  // namespace switchyard::plan
