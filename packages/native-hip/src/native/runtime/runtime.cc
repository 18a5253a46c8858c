#include "runtime.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::runtime {
namespace {

struct StagingBuffer {
  void* host = nullptr;
  hipEvent_t done = nullptr;  // recorded after the last DMA that used `host`
};

struct DeviceState {
  hipStream_t stream = nullptr;
  std::vector<StagingBuffer> idle;  // returned staging buffers, reused by the next copy
  std::vector<hipStream_t> idle_plan_streams;  // handed back by disposed plans, synchronized
  HandleBytes handle_bytes;
};

std::mutex& StateMutex() {
  static std::mutex mutex;
  return mutex;
}

// Leaked on purpose: streams and pinned memory must not be destroyed after the runtime shuts down.
std::map<int, DeviceState>& States() {
  static auto* states = new std::map<int, DeviceState>();
  return *states;
}

constexpr size_t kMaxIdleStaging = 8;  // two per copy lane (kMaxLanes = 4)

hipError_t AcquireStaging(int device, StagingBuffer* out) {
  {
    std::lock_guard<std::mutex> lock(StateMutex());
    auto& idle = States()[device].idle;
    if (!idle.empty()) {
      *out = idle.back();
      idle.pop_back();
      return hipSuccess;
    }
  }
  StagingBuffer buffer;
  hipError_t status = hipHostMalloc(&buffer.host, kStagingBytes, hipHostMallocDefault);
  if (status != hipSuccess) return status;
  status = hipEventCreateWithFlags(&buffer.done, hipEventDisableTiming);
  if (status != hipSuccess) {
    (void)hipHostFree(buffer.host);
    return status;
  }
  *out = buffer;
  return hipSuccess;
}

void ReleaseStaging(int device, const StagingBuffer& buffer) {
  {
    std::lock_guard<std::mutex> lock(StateMutex());
    auto& idle = States()[device].idle;
    if (idle.size() < kMaxIdleStaging) {
      idle.push_back(buffer);
      return;
    }
  }
  (void)hipEventDestroy(buffer.done);
  (void)hipHostFree(buffer.host);
}

// Two staging buffers held for the length of one copy, returned even on an early error.
class StagingPair {
 public:
  explicit StagingPair(int device) : device_(device) {}
  ~StagingPair() {
    for (int i = 0; i < acquired_; ++i) {
      (void)hipEventSynchronize(buffers_[i].done);  // never hand back a buffer a DMA may still read/write
      ReleaseStaging(device_, buffers_[i]);
    }
  }
  hipError_t Acquire() {
    for (; acquired_ < 2; ++acquired_) {
      hipError_t status = AcquireStaging(device_, &buffers_[acquired_]);
      if (status != hipSuccess) return status;
    }
    return hipSuccess;
  }
  StagingBuffer& operator[](size_t i) { return buffers_[i % 2]; }

 private:
  int device_;
  int acquired_ = 0;
  StagingBuffer buffers_[2];
};

#define SWITCHYARD_RETURN_IF_ERROR(expr)      \
  do {                                        \
    hipError_t status_ = (expr);              \
    if (status_ != hipSuccess) return status_; \
  } while (0)

}  // namespace

hipError_t DeviceStream(int device, hipStream_t* stream) {
  std::lock_guard<std::mutex> lock(StateMutex());
  DeviceState& state = States()[device];
  if (state.stream == nullptr) {
    SWITCHYARD_RETURN_IF_ERROR(hipSetDevice(device));
    SWITCHYARD_RETURN_IF_ERROR(hipStreamCreateWithFlags(&state.stream, hipStreamDefault));
  }
  *stream = state.stream;
  return hipSuccess;
}

namespace {

// Large copies run in lanes: lane l of L takes chunks l, l+L, l+2L... with its own two staging
// buffers, on its own host thread (lane 0 on the caller's). One thread's memcpy between pageable and
// pinned memory (~8 GB/s) is slower than the DMA behind it; a few lanes keep the DMA busy. The lanes
// queue on the one device stream: their chunks are disjoint, so their order does not matter.
constexpr size_t kMaxLanes = 4;
constexpr size_t kChunksPerLane = 1;  // a lane per 4 MiB chunk, up to kMaxLanes

template <class Lane>
hipError_t RunLanes(int device, size_t chunks, Lane lane) {
  const size_t lanes = std::max<size_t>(1, std::min(kMaxLanes, chunks / kChunksPerLane));
  if (lanes == 1) return lane(0, 1);
  std::vector<hipError_t> results(lanes, hipSuccess);
  std::vector<std::thread> threads;
  threads.reserve(lanes - 1);
  for (size_t l = 1; l < lanes; ++l) {
    threads.emplace_back([&, l] {
      results[l] = hipSetDevice(device);  // the current device is per thread
      if (results[l] == hipSuccess) results[l] = lane(l, lanes);
    });
  }
  results[0] = lane(0, lanes);
  for (std::thread& t : threads) t.join();
  for (hipError_t r : results) {
    if (r != hipSuccess) return r;
  }
  return hipSuccess;
}

}  // namespace

hipError_t CopyHostToDevice(int device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return hipSuccess;
  SWITCHYARD_RETURN_IF_ERROR(hipSetDevice(device));
  hipStream_t stream;
  SWITCHYARD_RETURN_IF_ERROR(DeviceStream(device, &stream));
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  const size_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  return RunLanes(device, chunks, [&](size_t lane, size_t lanes) -> hipError_t {
    StagingPair staging(device);
    SWITCHYARD_RETURN_IF_ERROR(staging.Acquire());
    size_t k = 0;  // this lane's chunk count: alternates the pair
    for (size_t chunk = lane; chunk < chunks; chunk += lanes, ++k) {
      const size_t offset = chunk * kStagingBytes;
      const size_t n = std::min(kStagingBytes, bytes - offset);
      StagingBuffer& buffer = staging[k];
      if (k >= 2) SWITCHYARD_RETURN_IF_ERROR(hipEventSynchronize(buffer.done));  // its last DMA finished
      std::memcpy(buffer.host, in + offset, n);
      SWITCHYARD_RETURN_IF_ERROR(hipMemcpyAsync(out + offset, buffer.host, n, hipMemcpyHostToDevice, stream));
      SWITCHYARD_RETURN_IF_ERROR(hipEventRecord(buffer.done, stream));
    }
    // The stream is in order, so this lane's last event covers its every chunk.
    return k == 0 ? hipSuccess : hipEventSynchronize(staging[k - 1].done);
  });
}

hipError_t CopyDeviceToHost(int device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return hipSuccess;
  SWITCHYARD_RETURN_IF_ERROR(hipSetDevice(device));
  hipStream_t stream;
  SWITCHYARD_RETURN_IF_ERROR(DeviceStream(device, &stream));
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  const size_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  return RunLanes(device, chunks, [&](size_t lane, size_t lanes) -> hipError_t {
    StagingPair staging(device);
    SWITCHYARD_RETURN_IF_ERROR(staging.Acquire());
    std::vector<size_t> mine;
    for (size_t chunk = lane; chunk < chunks; chunk += lanes) mine.push_back(chunk);
    auto enqueue = [&](size_t k) -> hipError_t {
      const size_t offset = mine[k] * kStagingBytes;
      const size_t n = std::min(kStagingBytes, bytes - offset);
      SWITCHYARD_RETURN_IF_ERROR(hipMemcpyAsync(staging[k].host, in + offset, n, hipMemcpyDeviceToHost, stream));
      return hipEventRecord(staging[k].done, stream);
    };
    if (mine.empty()) return hipSuccess;
    SWITCHYARD_RETURN_IF_ERROR(enqueue(0));
    for (size_t k = 0; k < mine.size(); ++k) {
      // Queue the next chunk into the other buffer (drained in the previous iteration) before
      // draining this one, so DMA and memcpy overlap.
      if (k + 1 < mine.size()) SWITCHYARD_RETURN_IF_ERROR(enqueue(k + 1));
      SWITCHYARD_RETURN_IF_ERROR(hipEventSynchronize(staging[k].done));
      const size_t offset = mine[k] * kStagingBytes;
      std::memcpy(out + offset, staging[k].host, std::min(kStagingBytes, bytes - offset));
    }
    return hipSuccess;
  });
}

size_t StagingBuffersCached(int device) {
  std::lock_guard<std::mutex> lock(StateMutex());
  auto it = States().find(device);
  return it == States().end() ? 0 : it->second.idle.size();
}

hipError_t AcquirePlanStream(int device, hipStream_t* stream) {
  {
    std::lock_guard<std::mutex> lock(StateMutex());
    auto& idle = States()[device].idle_plan_streams;
    if (!idle.empty()) {
      *stream = idle.back();
      idle.pop_back();
      return hipSuccess;
    }
  }
  hipError_t status = hipSetDevice(device);
  if (status != hipSuccess) return status;
  return hipStreamCreateWithFlags(stream, hipStreamNonBlocking);
}

bool ReturnPlanStream(int device, hipStream_t stream) {
  std::lock_guard<std::mutex> lock(StateMutex());
  auto& idle = States()[device].idle_plan_streams;
  if (idle.size() >= kIdlePlanStreams) return false;
  idle.push_back(stream);
  return true;
}

size_t IdlePlanStreams(int device) {
  std::lock_guard<std::mutex> lock(StateMutex());
  auto found = States().find(device);
  return found == States().end() ? 0 : found->second.idle_plan_streams.size();
}

void RecordHandleBytes(int device, HandleLibrary library, size_t bytes) {
  std::lock_guard<std::mutex> lock(StateMutex());
  HandleBytes& h = States()[device].handle_bytes;
  (library == HandleLibrary::kDnn ? h.dnn : h.blas) = bytes;
  ++h.created;
}

HandleBytes LibraryHandleBytes(int device) {
  std::lock_guard<std::mutex> lock(StateMutex());
  auto found = States().find(device);
  return found == States().end() ? HandleBytes{} : found->second.handle_bytes;
}

size_t DeviceFreeBytes(int device) {
  size_t free = 0, total = 0;
  if (hipSetDevice(device) != hipSuccess || hipMemGetInfo(&free, &total) != hipSuccess) return 0;
  return free;
}

}  // namespace switchyard::runtime
