#include "runtime.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
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

constexpr size_t kMaxIdleStaging = 8;

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

hipError_t CopyHostToDevice(int device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return hipSuccess;
  SWITCHYARD_RETURN_IF_ERROR(hipSetDevice(device));
  hipStream_t stream;
  SWITCHYARD_RETURN_IF_ERROR(DeviceStream(device, &stream));
  StagingPair staging(device);
  SWITCHYARD_RETURN_IF_ERROR(staging.Acquire());
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  size_t chunk = 0;
  for (size_t offset = 0; offset < bytes; offset += kStagingBytes, ++chunk) {
    const size_t n = std::min(kStagingBytes, bytes - offset);
    StagingBuffer& buffer = staging[chunk];
    if (chunk >= 2) SWITCHYARD_RETURN_IF_ERROR(hipEventSynchronize(buffer.done));  // its last DMA finished
    std::memcpy(buffer.host, in + offset, n);
    SWITCHYARD_RETURN_IF_ERROR(hipMemcpyAsync(out + offset, buffer.host, n, hipMemcpyHostToDevice, stream));
    SWITCHYARD_RETURN_IF_ERROR(hipEventRecord(buffer.done, stream));
  }
  // The stream is in order, so the last chunk's event covers every chunk.
  return hipEventSynchronize(staging[chunk - 1].done);
}

hipError_t CopyDeviceToHost(int device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return hipSuccess;
  SWITCHYARD_RETURN_IF_ERROR(hipSetDevice(device));
  hipStream_t stream;
  SWITCHYARD_RETURN_IF_ERROR(DeviceStream(device, &stream));
  StagingPair staging(device);
  SWITCHYARD_RETURN_IF_ERROR(staging.Acquire());
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  const size_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  auto enqueue = [&](size_t chunk) -> hipError_t {
    const size_t offset = chunk * kStagingBytes;
    const size_t n = std::min(kStagingBytes, bytes - offset);
    SWITCHYARD_RETURN_IF_ERROR(hipMemcpyAsync(staging[chunk].host, in + offset, n, hipMemcpyDeviceToHost, stream));
    return hipEventRecord(staging[chunk].done, stream);
  };
  SWITCHYARD_RETURN_IF_ERROR(enqueue(0));
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    // Queue the next chunk into the other buffer (drained in the previous iteration) before
    // draining this one, so DMA and memcpy overlap.
    if (chunk + 1 < chunks) SWITCHYARD_RETURN_IF_ERROR(enqueue(chunk + 1));
    SWITCHYARD_RETURN_IF_ERROR(hipEventSynchronize(staging[chunk].done));
    const size_t offset = chunk * kStagingBytes;
    std::memcpy(out + offset, staging[chunk].host, std::min(kStagingBytes, bytes - offset));
  }
  return hipSuccess;
}

size_t StagingBuffersCached(int device) {
  std::lock_guard<std::mutex> lock(StateMutex());
  auto it = States().find(device);
  return it == States().end() ? 0 : it->second.idle.size();
}

}  // namespace switchyard::runtime
