// The runtime's C++ API for the other modules (plans, BLAS, DNN): one stream per device, blocking
// host<->device copies through reused pinned staging buffers. Every function returns the runtime's
// status rather than throwing, and is safe to call from worker threads.
#pragma once

#include <cstddef>

#include "vendor/gpu.h"

namespace switchyard::runtime {

// The device's stream, created on first use (blocking w.r.t. the legacy default stream, so work
// that still uses stream 0 stays ordered with it). Lives for the process.
hipError_t DeviceStream(int device, hipStream_t* stream);

// Copies `bytes` from host memory to device memory on the device's stream, through pinned staging
// buffers (two, alternating, so the host-side memcpy of one chunk overlaps the DMA of the previous;
// a copy of many chunks runs in up to 4 lanes on their own host threads, each with its own pair).
// Returns when the data is on the device. Sets the calling thread's current device.
hipError_t CopyHostToDevice(int device, void* dst, const void* src, size_t bytes);

// The reverse; returns when `dst` holds the data. Ordered after everything queued on the stream.
hipError_t CopyDeviceToHost(int device, void* dst, const void* src, size_t bytes);

// Streams for execution plans. A plan takes one for its lifetime (AcquirePlanStream) and hands it back
// when disposed (ReturnPlanStream, after synchronizing it). The libraries' handles and workspaces made
// for a stream (cuDNN/MIOpen, cuBLAS/rocBLAS: keyed by (device, stream)) then serve the next plan
// instead of being created and destroyed with every session, which leaked host memory in the drivers.
// At most kIdlePlanStreams per device wait for reuse: ReturnPlanStream returns false when the stream was
// not kept, and the caller releases the libraries' handles for it and destroys it.
hipError_t AcquirePlanStream(int device, hipStream_t* stream);
bool ReturnPlanStream(int device, hipStream_t stream);
constexpr size_t kIdlePlanStreams = 2;

// Idle plan streams currently kept for `device` (for tests).
size_t IdlePlanStreams(int device);

// Device memory a library handle keeps of its own (cuDNN's, cuBLAS's: outside every arena), as the
// driver's free memory saw it go while the handle was created. The seams record each creation; memory
// estimates count a new plan stream's handles with the last figure per library (none before the first).
enum class HandleLibrary { kDnn, kBlas };
void RecordHandleBytes(int device, HandleLibrary library, size_t bytes);
struct HandleBytes {
  size_t dnn = 0, blas = 0;  // the last creation's figure per library
  size_t created = 0;        // handles created on the device so far
};
HandleBytes LibraryHandleBytes(int device);
// The device's free memory as the driver reports it (0 when it cannot say). Sets the current device.
size_t DeviceFreeBytes(int device);

// Bytes per pinned staging buffer (a copy larger than this is pipelined in chunks of it).
constexpr size_t kStagingBytes = size_t{4} << 20;

// Pinned staging buffers currently cached for `device` (for tests: they are reused, not re-allocated).
size_t StagingBuffersCached(int device);

}  // namespace switchyard::runtime
