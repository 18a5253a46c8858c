#include "plan/host_copy.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace switchyard::plan {
namespace {

constexpr size_t kMaxThreads = kMaxCopyThreads;
constexpr size_t kSliceTarget = size_t{1} << 20;  // ~1 MiB slices: small enough that the last one's drain is short
// A device-to-host copy under kThreadedDrainBytes is drained by one thread in slices of ~64 KiB,
// so the memcpy of each overlaps the DMA of the next (starting threads would cost more than they
// save). BERT's 393 KB output: 6 slices.
constexpr size_t kSmallSliceTarget = size_t{64} << 10;
constexpr size_t kThreadedDrainBytes = size_t{4} << 20;

// Slices of a copy: ~`target` bytes each (at most kMaxCopySlices), starting on 4 KiB boundaries so
// no two threads write one page.
size_t SliceBytes(size_t bytes, size_t target) {
  const size_t slices = std::max<size_t>(1, std::min(kMaxCopySlices, bytes / target));
  return slices == 1 ? bytes : ((bytes + slices - 1) / slices + 4095) & ~size_t{4095};
}

// The split of a device-to-host copy: the same for queuing and draining.
size_t DrainSliceBytes(size_t bytes) { return SliceBytes(bytes, bytes < kThreadedDrainBytes ? kSmallSliceTarget : kSliceTarget); }

// Runs slice(begin, n, slice_index, thread_index) over `bytes` in slices of `step` bytes, on up to
// `max_threads` threads (the caller's is thread 0); thread t takes slices t, t + threads, ... in order.
template <class Slice>
void ForSlices(size_t bytes, size_t step, size_t max_threads, Slice slice) {
  const size_t slices = step == 0 ? 1 : (bytes + step - 1) / step;
  const size_t threads = std::max<size_t>(1, std::min(max_threads, slices));
  auto run = [&slice, bytes, step, slices, threads](size_t t) {
    for (size_t k = t; k < slices; k += threads) slice(k * step, std::min(step, bytes - k * step), k, t);
  };
  if (threads == 1) {
    run(0);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(run, t);
  run(0);
  for (std::thread& w : workers) w.join();
}

}  // namespace

HostMirror* HostMirrors::Get(size_t index, size_t bytes) {
  if (index >= blocks_.size()) blocks_.resize(index + 1);
  if (!blocks_[index]) blocks_[index] = std::make_unique<HostMirror>();
  HostMirror& m = *blocks_[index];
  if (m.host != nullptr) return &m;
  if (total_ + bytes > kMaxBytes) return nullptr;
  bool ok = hipHostMalloc(&m.host, bytes, hipHostMallocDefault) == hipSuccess;
  for (size_t i = 0; ok && i < kMaxCopySlices; ++i) ok = hipEventCreateWithFlags(&m.slice_done[i], hipEventDisableTiming) == hipSuccess;
  if (!ok) {
    (void)hipGetLastError();
    for (hipEvent_t& e : m.slice_done) {
      if (e != nullptr) (void)hipEventDestroy(e);
      e = nullptr;
    }
    if (m.host != nullptr) (void)hipHostFree(m.host);
    m.host = nullptr;
    return nullptr;
  }
  total_ += bytes;
  return &m;
}

void HostMirrors::Release() {
  for (const auto& m : blocks_) {
    if (!m) continue;
    for (hipEvent_t e : m->slice_done) {
      if (e != nullptr) (void)hipEventDestroy(e);
    }
    if (m->host != nullptr) (void)hipHostFree(m->host);
  }
  blocks_.clear();
  total_ = 0;
}

hipError_t QueueHostToDevice(int device, hipStream_t stream, void* device_dst, void* mirror, const void* src, size_t bytes) {
  hipError_t results[kMaxThreads] = {hipSuccess, hipSuccess, hipSuccess, hipSuccess};
  bool device_set[kMaxThreads] = {true, false, false, false};
  ForSlices(bytes, SliceBytes(bytes, kSliceTarget), kMaxThreads, [&](size_t begin, size_t n, size_t, size_t t) {
    if (results[t] != hipSuccess) return;
    if (!device_set[t]) {
      device_set[t] = true;
      results[t] = hipSetDevice(device);  // the current device is per thread
      if (results[t] != hipSuccess) return;
    }
    std::memcpy(static_cast<char*>(mirror) + begin, static_cast<const char*>(src) + begin, n);
    results[t] = hipMemcpyAsync(static_cast<char*>(device_dst) + begin, static_cast<char*>(mirror) + begin, n, hipMemcpyHostToDevice, stream);
  });
  for (hipError_t r : results) {
    if (r != hipSuccess) return r;
  }
  return hipSuccess;
}

hipError_t QueueDeviceToHost(hipStream_t stream, HostMirror* mirror, const void* device_src, size_t bytes) {
  const size_t step = DrainSliceBytes(bytes);
  for (size_t begin = 0, k = 0; begin < bytes; begin += step, ++k) {
    const size_t n = std::min(step, bytes - begin);
    hipError_t status = hipMemcpyAsync(static_cast<char*>(mirror->host) + begin, static_cast<const char*>(device_src) + begin, n, hipMemcpyDeviceToHost, stream);
    if (status == hipSuccess) status = hipEventRecord(mirror->slice_done[k], stream);
    if (status != hipSuccess) return status;
  }
  return hipSuccess;
}

hipError_t DrainDeviceToHost(int device, void* dst, const HostMirror* mirror, size_t bytes) {
  hipError_t results[kMaxThreads] = {hipSuccess, hipSuccess, hipSuccess, hipSuccess};
  bool device_set[kMaxThreads] = {true, false, false, false};
  ForSlices(bytes, DrainSliceBytes(bytes), bytes < kThreadedDrainBytes ? 1 : kMaxThreads, [&](size_t begin, size_t n, size_t k, size_t t) {
    if (results[t] != hipSuccess) return;
    if (!device_set[t]) {
      device_set[t] = true;
      results[t] = hipSetDevice(device);
      if (results[t] != hipSuccess) return;
    }
    results[t] = hipEventSynchronize(mirror->slice_done[k]);
    if (results[t] == hipSuccess) std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(mirror->host) + begin, n);
  });
  for (hipError_t r : results) {
    if (r != hipSuccess) return r;
  }
  return hipSuccess;
}

void TouchPages(void* dst, size_t bytes) {
  ForSlices(bytes, SliceBytes(bytes, kSliceTarget), kMaxThreads, [&](size_t begin, size_t n, size_t, size_t) {
    volatile char* p = static_cast<char*>(dst) + begin;
    for (size_t off = 0; off < n; off += 4096) p[off] = 0;
  });
}

}  // namespace switchyard::plan
