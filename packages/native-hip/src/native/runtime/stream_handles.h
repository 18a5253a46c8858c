// The libraries' seams (cuDNN, MIOpen, cuBLAS, rocBLAS) each keep their handles in a map keyed by
// (device, stream). When a plan gives up its stream for good, its handle goes: the seam says how to
// destroy one entry, this says how to find and remove it.
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include "vendor/gpu.h"

namespace switchyard::runtime {

template <typename Handle, typename Destroy>
void EraseStreamHandle(std::mutex& mutex, std::map<std::pair<int, hipStream_t>, Handle>* handles, int device, hipStream_t stream,
                       Destroy destroy) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles->find({device, stream});
  if (it == handles->end()) return;
  (void)hipSetDevice(device);
  destroy(it->second);
  handles->erase(it);
}

}  // namespace switchyard::runtime
