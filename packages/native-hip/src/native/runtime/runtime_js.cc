// JS classes of the runtime: DeviceArena, Stream, Event, and the FakeArena test hook. One
// ObjectWrap per JS object; the C++ state lives in runtime.h / device_arena.h.
#include <napi.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include <switchyard/instance_tag.h>
#include <switchyard/promise_worker.h>

#include "addon_data.h"
#include "arena_js.h"
#include "device_arena.h"
#include "device_buffer.h"
#include "gpu_errors.h"
#include "runtime.h"

namespace switchyard {
namespace {

int DeviceArg(Napi::Env env, const Napi::Value& value, const char* where) {
  if (!value.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": deviceId must be a number", true);
  const double device = value.As<Napi::Number>().DoubleValue();
  if (!(device >= 0) || device != std::floor(device) || device > 1024) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": deviceId must be a non-negative integer");
  }
  return static_cast<int>(device);
}

// Checks the id names a device the runtime sees, so later calls fail here with a clear message.
void CheckDevice(Napi::Env env, int device, const char* where) {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) ThrowGpuError(env, SWITCHYARD_GPU_NAME(hipGetDeviceCount), status);
  if (device >= count) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": device " + std::to_string(device) + " does not exist (" +
                                         std::to_string(count) + " visible)");
  }
}

// ---------------------------------------------------------------- DeviceArena

class DeviceArenaObject : public Napi::ObjectWrap<DeviceArenaObject> {
 public:
  static constexpr const char* kClass = "DeviceArena";
  // A receiver of another class throws instead of being cast (switchyard/instance_tag.h).
  static DeviceArenaObject* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<DeviceArenaObject>(wrapper); }
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "DeviceArena",
                       {
                           InstanceMethod<&DeviceArenaObject::Allocate>("allocate"),
                           InstanceMethod<&DeviceArenaObject::Stats>("stats"),
                           InstanceMethod<&DeviceArenaObject::Shrink>("shrink"),
                           InstanceAccessor<&DeviceArenaObject::GetDeviceId>("deviceId"),
                           InstanceAccessor<&DeviceArenaObject::GetLimit>("gpuMemLimit"),
                       });
  }

  // [sync] new DeviceArena(deviceId, { gpuMemLimit?, arenaExtendStrategy?, initialChunkBytes? })
  explicit DeviceArenaObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceArenaObject>(info) {
    Napi::Env env = info.Env();
    TagInstance(env, info.This(), ClassTag(kClass));
    const int device = DeviceArg(env, info[0], "new DeviceArena");
    runtime::ArenaOptions options = runtime::ParseArenaOptions(env, info[1], "new DeviceArena");
    CheckDevice(env, device, "new DeviceArena");
    arena_ = std::make_shared<runtime::DeviceArena>(device, options);
  }

 private:
  // [sync] allocate(byteLength) -> DeviceBuffer (a block of this arena; free() returns it to the cache).
  // Throws Error code 'OUT_OF_MEMORY' and leaves the arena as it was.
  Napi::Value Allocate(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const size_t bytes = runtime::ByteCountArg(env, info[0], "DeviceArena.allocate: byteLength");
    runtime::ArenaResult result = arena_->Allocate(bytes);
    if (result.failure != runtime::ArenaFailure::kNone) {
      runtime::ThrowArenaFailure(env, "DeviceArena.allocate", bytes, arena_->options(), result);
    }
    return DeviceBuffer::Adopt(env, arena_->device(), reinterpret_cast<void*>(result.address), bytes, arena_);
  }
  // [sync] stats() -> { inUse, reserved, peak, allocations, frees, chunks, largestFree }
  Napi::Value Stats(const Napi::CallbackInfo& info) { return runtime::ArenaStatsToJs(info.Env(), arena_->Stats()); }
  // [sync] shrink() -> bytes released to the driver (chunks with no live allocation).
  Napi::Value Shrink(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(arena_->Shrink()));
  }
  Napi::Value GetDeviceId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), arena_->device()); }
  Napi::Value GetLimit(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(arena_->options().limit));
  }

  std::shared_ptr<runtime::DeviceArena> arena_;
};

// ---------------------------------------------------------------- FakeArena (test hook)

// A pretend driver: hands out addresses from a counter (never dereferenced) up to `capacity` bytes,
// and counts calls, so tests can check the arena caches, splits, merges and releases.
struct FakeBacking {
  size_t capacity = 0;  // 0 = unlimited
  uintptr_t next = 0x100000000;
  size_t live_bytes = 0;
  size_t reserves = 0;
  size_t releases = 0;
  std::map<uintptr_t, size_t> live;

  runtime::BackingStatus Reserve(size_t bytes, uintptr_t* base, std::string* error) {
    if (capacity != 0 && live_bytes + bytes > capacity) {
      *error = "fake driver: out of memory";
      return runtime::BackingStatus::kOutOfMemory;
    }
    *base = next;
    next += (bytes + 0xFFFF) / 0x10000 * 0x10000 + 0x10000;  // a gap, so chunks are never adjacent
    live[*base] = bytes;
    live_bytes += bytes;
    ++reserves;
    return runtime::BackingStatus::kOk;
  }
  void Release(uintptr_t base, size_t bytes) {
    live.erase(base);
    live_bytes -= bytes;
    ++releases;
  }
};

class FakeArenaObject : public Napi::ObjectWrap<FakeArenaObject> {
 public:
  static constexpr const char* kClass = "FakeArena";
  // A receiver of another class throws instead of being cast (switchyard/instance_tag.h).
  static FakeArenaObject* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<FakeArenaObject>(wrapper); }
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "FakeArena",
                       {
                           InstanceMethod<&FakeArenaObject::Allocate>("allocate"),
                           InstanceMethod<&FakeArenaObject::Free>("free"),
                           InstanceMethod<&FakeArenaObject::Stats>("stats"),
                           InstanceMethod<&FakeArenaObject::Shrink>("shrink"),
                           InstanceMethod<&FakeArenaObject::BackingStats>("backingStats"),
                       });
  }

  // [sync] new FakeArena({ gpuMemLimit?, arenaExtendStrategy?, initialChunkBytes?, deviceCapacity? })
  explicit FakeArenaObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FakeArenaObject>(info) {
    Napi::Env env = info.Env();
    TagInstance(env, info.This(), ClassTag(kClass));
    runtime::ArenaOptions options = runtime::ParseArenaOptions(env, info[0], "new FakeArena");
    FakeBacking backing;
    if (info[0].IsObject()) {
      Napi::Value capacity = info[0].As<Napi::Object>().Get("deviceCapacity");
      if (!capacity.IsUndefined()) backing.capacity = runtime::ByteCountArg(env, capacity, "new FakeArena: deviceCapacity");
    }
    core_ = std::make_unique<runtime::ArenaCore<FakeBacking>>(backing, options);
  }

 private:
  // [sync] allocate(bytes) -> address (a number); throws like DeviceArena.allocate.
  Napi::Value Allocate(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const size_t bytes = runtime::ByteCountArg(env, info[0], "FakeArena.allocate: byteLength");
    runtime::ArenaResult result = core_->Allocate(bytes);
    if (result.failure != runtime::ArenaFailure::kNone) {
      runtime::ThrowArenaFailure(env, "FakeArena.allocate", bytes, core_->options(), result);
    }
    return Napi::Number::New(env, static_cast<double>(result.address));
  }
  // [sync] free(address) -> whether it was a live allocation.
  Napi::Value Free(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", "FakeArena.free: address must be a number", true);
    const double address = info[0].As<Napi::Number>().DoubleValue();
    if (!(address >= 0) || address != std::floor(address)) return Napi::Boolean::New(env, false);
    return Napi::Boolean::New(env, core_->Free(static_cast<uintptr_t>(address)));
  }
  Napi::Value Stats(const Napi::CallbackInfo& info) { return runtime::ArenaStatsToJs(info.Env(), core_->Stats()); }
  Napi::Value Shrink(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(core_->Shrink()));
  }
  // [sync] backingStats() -> { reserves, releases, liveBytes, liveChunks }: what the fake driver saw.
  Napi::Value BackingStats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const FakeBacking& backing = core_->backing();
    Napi::Object out = Napi::Object::New(env);
    out.Set("reserves", Napi::Number::New(env, static_cast<double>(backing.reserves)));
    out.Set("releases", Napi::Number::New(env, static_cast<double>(backing.releases)));
    out.Set("liveBytes", Napi::Number::New(env, static_cast<double>(backing.live_bytes)));
    out.Set("liveChunks", Napi::Number::New(env, static_cast<double>(backing.live.size())));
    return out;
  }

  std::unique_ptr<runtime::ArenaCore<FakeBacking>> core_;
};

// ---------------------------------------------------------------- Stream and Event

class StreamObject : public Napi::ObjectWrap<StreamObject> {
 public:
  static constexpr const char* kClass = "Stream";
  // A receiver of another class throws instead of being cast (switchyard/instance_tag.h).
  static StreamObject* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<StreamObject>(wrapper); }
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Stream",
                       {
                           InstanceMethod<&StreamObject::Synchronize>("synchronize"),
                           InstanceMethod<&StreamObject::SynchronizeAsync>("synchronizeAsync"),
                           InstanceMethod<&StreamObject::Query>("query"),
                           InstanceAccessor<&StreamObject::GetDeviceId>("deviceId"),
                       });
  }

  // Not for JS to call: getStream(deviceId) makes these.
  explicit StreamObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StreamObject>(info) {
    Napi::Env env = info.Env();
    TagInstance(env, info.This(), ClassTag(kClass));
    device_ = DeviceArg(env, info[0], "getStream");
    CheckDevice(env, device_, "getStream");
    CheckGpu(env, "getStream", runtime::DeviceStream(device_, &stream_));
  }

  hipStream_t stream() const { return stream_; }
  int device() const { return device_; }

 private:
  struct SyncBaton {
    int device;
    hipStream_t stream;
    const char* Context() const { return ""; }  // the GPU status message names the call
    void Run() const {
      hipError_t status = hipSetDevice(device);
      if (status == hipSuccess) status = hipStreamSynchronize(stream);
      if (status != hipSuccess) throw GpuFailure(SWITCHYARD_GPU_NAME(hipStreamSynchronize), status);
    }
  };

  // [sync] synchronize(): waits for everything queued on the stream.
  Napi::Value Synchronize(const Napi::CallbackInfo& info) {
    CheckGpu(info.Env(), SWITCHYARD_GPU_NAME(hipStreamSynchronize), hipStreamSynchronize(stream_));
    return info.Env().Undefined();
  }
  // [async] synchronizeAsync() -> Promise<void>, waiting on a worker thread.
  Napi::Value SynchronizeAsync(const Napi::CallbackInfo& info) {
    return PromiseWorker<SyncBaton>::QueueOnPool(info.Env(), SyncBaton{device_, stream_}, {info.This()});
  }
  // [sync] query() -> true when all queued work has finished.
  Napi::Value Query(const Napi::CallbackInfo& info) {
    const hipError_t status = hipStreamQuery(stream_);
    if (status == hipErrorNotReady) return Napi::Boolean::New(info.Env(), false);
    CheckGpu(info.Env(), SWITCHYARD_GPU_NAME(hipStreamQuery), status);
    return Napi::Boolean::New(info.Env(), true);
  }
  Napi::Value GetDeviceId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), device_); }

  int device_ = 0;
  hipStream_t stream_ = nullptr;
};

class EventObject : public Napi::ObjectWrap<EventObject> {
 public:
  static constexpr const char* kClass = "Event";
  // A receiver of another class throws instead of being cast (switchyard/instance_tag.h).
  static EventObject* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<EventObject>(wrapper); }
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Event",
                       {
                           InstanceMethod<&EventObject::Record>("record"),
                           InstanceMethod<&EventObject::Synchronize>("synchronize"),
                           InstanceMethod<&EventObject::Query>("query"),
                           StaticMethod<&EventObject::ElapsedMs>("elapsedMs"),
                       });
  }

  // [sync] new Event(deviceId): a timing event on that device.
  explicit EventObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EventObject>(info) {
    Napi::Env env = info.Env();
    TagInstance(env, info.This(), ClassTag(kClass));
    device_ = DeviceArg(env, info[0], "new Event");
    CheckDevice(env, device_, "new Event");
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_));
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&event_));
  }
  ~EventObject() override {
    if (event_ != nullptr) (void)hipEventDestroy(event_);
  }

 private:
  // [sync] record(): marks the current end of the device's stream.
  Napi::Value Record(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    hipStream_t stream;
    CheckGpu(env, "Event.record", runtime::DeviceStream(device_, &stream));
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventRecord), hipEventRecord(event_, stream));
    recorded_ = true;
    return env.Undefined();
  }
  // [sync] synchronize(): waits until the work before record() has finished.
  Napi::Value Synchronize(const Napi::CallbackInfo& info) {
    CheckGpu(info.Env(), SWITCHYARD_GPU_NAME(hipEventSynchronize), hipEventSynchronize(event_));
    return info.Env().Undefined();
  }
  // [sync] query() -> true when the work before record() has finished (or it was never recorded).
  Napi::Value Query(const Napi::CallbackInfo& info) {
    const hipError_t status = hipEventQuery(event_);
    if (status == hipErrorNotReady) return Napi::Boolean::New(info.Env(), false);
    CheckGpu(info.Env(), SWITCHYARD_GPU_NAME(hipEventQuery), status);
    return Napi::Boolean::New(info.Env(), true);
  }
  // [sync] Event.elapsedMs(start, end) -> milliseconds between two recorded, completed events.
  static Napi::Value ElapsedMs(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EventObject* start = UnwrapArgument<EventObject>(env, info[0], "Event.elapsedMs: start");
    EventObject* end = UnwrapArgument<EventObject>(env, info[1], "Event.elapsedMs: end");
    if (!start->recorded_ || !end->recorded_) ThrowJs(env, "INVALID_ARGUMENT", "Event.elapsedMs: both events must be recorded");
    float ms = 0;
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventElapsedTime), hipEventElapsedTime(&ms, start->event_, end->event_));
    return Napi::Number::New(env, ms);
  }

  int device_ = 0;
  hipEvent_t event_ = nullptr;
  bool recorded_ = false;
};

// [sync] defaultArenaStats(deviceId) -> the stats of the device's default arena, which holds the BLAS
// and DNN libraries' workspaces: the EP reads it around a plan build to charge what the build took
// against gpuMemLimit. Touches no device (the arena reserves memory only when asked for a block).
Napi::Value DefaultArenaStats(const Napi::CallbackInfo& info) {
  const int device = DeviceArg(info.Env(), info[0], "defaultArenaStats");
  return runtime::ArenaStatsToJs(info.Env(), runtime::DefaultArena(device)->Stats());
}

// [sync] getStream(deviceId) -> Stream: the device's stream (created on first use).
Napi::Value GetStream(const Napi::CallbackInfo& info) {
  return info.Env().GetInstanceData<AddonData>()->stream.New({info[0]});
}

// [sync] stagingBuffersCached(deviceId) -> pinned staging buffers kept for reuse.
Napi::Value StagingBuffersCached(const Napi::CallbackInfo& info) {
  const int device = DeviceArg(info.Env(), info[0], "stagingBuffersCached");
  return Napi::Number::New(info.Env(), static_cast<double>(runtime::StagingBuffersCached(device)));
}

// [sync] idlePlanStreams(deviceId) -> streams disposed plans handed back, waiting for the next plan.
Napi::Value IdlePlanStreams(const Napi::CallbackInfo& info) {
  const int device = DeviceArg(info.Env(), info[0], "idlePlanStreams");
  return Napi::Number::New(info.Env(), static_cast<double>(runtime::IdlePlanStreams(device)));
}

// [sync] libraryHandleBytes(deviceId) -> {dnn, blas, created}: device memory the last cuDNN/MIOpen and
// cuBLAS handle made on the device kept of its own (driver's free memory before and after creating it).
Napi::Value LibraryHandleBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int device = DeviceArg(env, info[0], "libraryHandleBytes");
  const runtime::HandleBytes h = runtime::LibraryHandleBytes(device);
  Napi::Object out = Napi::Object::New(env);
  out.Set("dnn", Napi::Number::New(env, static_cast<double>(h.dnn)));
  out.Set("blas", Napi::Number::New(env, static_cast<double>(h.blas)));
  out.Set("created", Napi::Number::New(env, static_cast<double>(h.created)));
  return out;
}

}  // namespace

void InitRuntime(Napi::Env env, Napi::Object exports) {
  exports.Set("DeviceArena", DeviceArenaObject::Define(env));
  Napi::Function stream = StreamObject::Define(env);
  Napi::Function event = EventObject::Define(env);
  AddonData* data = env.GetInstanceData<AddonData>();
  data->stream = Napi::Persistent(stream);
  data->event = Napi::Persistent(event);
  exports.Set("Stream", stream);
  exports.Set("Event", event);
  exports.Set("defaultArenaStats", Napi::Function::New<DefaultArenaStats>(env, "defaultArenaStats"));
  exports.Set("getStream", Napi::Function::New<GetStream>(env, "getStream"));
  exports.Set("stagingBuffersCached", Napi::Function::New<StagingBuffersCached>(env, "stagingBuffersCached"));
  exports.Set("idlePlanStreams", Napi::Function::New<IdlePlanStreams>(env, "idlePlanStreams"));
  exports.Set("libraryHandleBytes", Napi::Function::New<LibraryHandleBytes>(env, "libraryHandleBytes"));
  Napi::Object testing = Napi::Object::New(env);
  testing.Set("FakeArena", FakeArenaObject::Define(env));
  exports.Set("testing", testing);
}

}  // namespace switchyard
