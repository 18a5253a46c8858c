#include <switchyard/promise_worker.h>

#include "device_buffer.h"

#include <cmath>
#include <string>

#include "addon_data.h"
#include "gpu_errors.h"
#include "runtime/runtime.h"
#include "vendor/gpu.h"

namespace switchyard {
namespace {

// The host bytes of a TypedArray (or DataView), after checking it is one.
struct HostView {
  void* data;
  size_t byte_length;
};

HostView HostViewOf(Napi::Env env, const Napi::Value& value, const char* method) {
  if (value.IsTypedArray()) {
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    auto* base = static_cast<uint8_t*>(array.ArrayBuffer().Data());
    return {base + array.ByteOffset(), array.ByteLength()};
  }
  if (value.IsDataView()) {
    Napi::DataView view = value.As<Napi::DataView>();
    auto* base = static_cast<uint8_t*>(view.ArrayBuffer().Data());
    return {base + view.ByteOffset(), view.ByteLength()};
  }
  ThrowJs(env, "INVALID_ARGUMENT", std::string("DeviceBuffer.") + method + ": expected a TypedArray or DataView", true);
}

// Copies one TypedArray's bytes between host and device off the JS thread. The baton is plain data
// (pointers and sizes); the PromiseWorker keeps the buffer and host objects alive until it settles,
// and the buffer counts the copy as a use (a free() meanwhile waits for it).
struct CopyBaton {
  DeviceBuffer* buffer;
  int device;
  void* device_ptr;
  void* host_ptr;
  size_t bytes;
  bool to_device;

  const char* Context() const { return ""; }  // the GPU status message names the call
  void Run() const {
    const hipError_t status = to_device ? runtime::CopyHostToDevice(device, device_ptr, host_ptr, bytes)
                                        : runtime::CopyDeviceToHost(device, host_ptr, device_ptr, bytes);
    if (status != hipSuccess) throw GpuFailure(to_device ? "uploadAsync" : "downloadAsync", status);
  }
  void Release() { buffer->EndAsyncUse(); }
};

}  // namespace

Napi::Function DeviceBuffer::Define(Napi::Env env) {
  return DefineClass(env, "DeviceBuffer",
                     {
                         InstanceMethod<&DeviceBuffer::Upload>("upload"),
                         InstanceMethod<&DeviceBuffer::Download>("download"),
                         InstanceMethod<&DeviceBuffer::UploadAsync>("uploadAsync"),
                         InstanceMethod<&DeviceBuffer::DownloadAsync>("downloadAsync"),
                         InstanceMethod<&DeviceBuffer::Free>("free"),
                         InstanceAccessor<&DeviceBuffer::GetByteLength>("byteLength"),
                         InstanceAccessor<&DeviceBuffer::GetDeviceId>("deviceId"),
                         InstanceAccessor<&DeviceBuffer::GetFreed>("freed"),
                         InstanceAccessor<&DeviceBuffer::GetFromArena>("fromArena"),
                     });
}

DeviceBuffer* DeviceBuffer::FromValue(Napi::Env env, const Napi::Value& value, const char* what) {
  // By the tag its constructor set, not instanceof: Object.create(DeviceBuffer.prototype) passes instanceof
  // and wraps nothing.
  DeviceBuffer* buffer = UnwrapArgument<DeviceBuffer>(env, value, what);
  if (buffer->freed_ || buffer->free_requested_) {
    ThrowJs(env, "RELEASED", std::string(what) + " was freed");
  }
  return buffer;
}

Napi::Object DeviceBuffer::Adopt(Napi::Env env, int device, void* ptr, size_t byte_length,
                                 std::shared_ptr<runtime::DeviceMemoryOwner> owner) {
  AddonData* addon = env.GetInstanceData<AddonData>();
  // Constructed empty (no hipMalloc), then pointed at the owner's memory.
  Napi::Object object = addon->device_buffer.New({Napi::Number::New(env, device), Napi::Number::New(env, 0)});
  DeviceBuffer* buffer = Napi::ObjectWrap<DeviceBuffer>::Unwrap(object);
  buffer->data_ = ptr;
  buffer->byte_length_ = byte_length;
  buffer->owner_ = std::move(owner);
  return object;
}

DeviceBuffer::DeviceBuffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceBuffer>(info) {
  Napi::Env env = info.Env();
  TagInstance(env, info.This(), ClassTag(kClass));
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
    ThrowJs(env, "INVALID_ARGUMENT", "new DeviceBuffer(deviceId, byteLength): both must be numbers", true);
  }
  const double device = info[0].As<Napi::Number>().DoubleValue();
  const double bytes = info[1].As<Napi::Number>().DoubleValue();
  if (!(device >= 0) || device != std::floor(device) || device > 1024) {
    ThrowJsRange(env, "INVALID_ARGUMENT", "DeviceBuffer: deviceId must be a non-negative integer");
  }
  // 2^48 bytes (256 TiB) is beyond any device; the bound keeps the double -> size_t cast exact.
  if (!(bytes >= 0) || bytes != std::floor(bytes) || bytes > 281474976710656.0) {
    ThrowJsRange(env, "INVALID_ARGUMENT", "DeviceBuffer: byteLength must be a non-negative integer below 2^48");
  }
  device_id_ = static_cast<int>(device);
  byte_length_ = static_cast<size_t>(bytes);
  if (byte_length_ > 0) {
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_id_));
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&data_, byte_length_));
  }
}

DeviceBuffer::~DeviceBuffer() { Release(); }

void DeviceBuffer::Release() {
  if (data_ != nullptr) {
    if (owner_) {
      owner_->ReleaseMemory(data_);
    } else {
      // Nothing useful can be done with a failure here (often: the context is already torn down).
      (void)hipSetDevice(device_id_);
      (void)hipFree(data_);
    }
    data_ = nullptr;
  }
  owner_.reset();
  freed_ = true;
}

void DeviceBuffer::EndAsyncUse() {
  if (--pending_ == 0 && free_requested_) Release();
}

Napi::Value DeviceBuffer::Copy(const Napi::CallbackInfo& info, bool to_device, bool async) {
  Napi::Env env = info.Env();
  const char* method = to_device ? (async ? "uploadAsync" : "upload") : (async ? "downloadAsync" : "download");
  FromValue(env, info.This(), "this");  // throws when freed
  HostView host = HostViewOf(env, info[0], method);
  double offset_value = 0;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", std::string("DeviceBuffer.") + method + ": byteOffset must be a number", true);
    offset_value = info[1].As<Napi::Number>().DoubleValue();
  }
  if (!(offset_value >= 0) || offset_value != std::floor(offset_value) || offset_value > static_cast<double>(byte_length_) ||
      static_cast<double>(host.byte_length) > static_cast<double>(byte_length_) - offset_value) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string("DeviceBuffer.") + method + ": " + std::to_string(host.byte_length) +
                                         " bytes at offset " + std::to_string(offset_value) + " do not fit in " +
                                         std::to_string(byte_length_));
  }
  char* device_ptr = static_cast<char*>(data_) + static_cast<size_t>(offset_value);
  if (async) {
    BeginAsyncUse();
    return PromiseWorker<CopyBaton>::QueueOnPool(env, CopyBaton{this, device_id_, device_ptr, host.data, host.byte_length, to_device},
                                                 {info.This(), info[0]});
  }
  if (host.byte_length == 0) return env.Undefined();
  const hipError_t status = to_device ? runtime::CopyHostToDevice(device_id_, device_ptr, host.data, host.byte_length)
                                      : runtime::CopyDeviceToHost(device_id_, host.data, device_ptr, host.byte_length);
  CheckGpu(env, method, status);
  return env.Undefined();
}

Napi::Value DeviceBuffer::Upload(const Napi::CallbackInfo& info) { return Copy(info, true, false); }
Napi::Value DeviceBuffer::Download(const Napi::CallbackInfo& info) { return Copy(info, false, false); }
Napi::Value DeviceBuffer::UploadAsync(const Napi::CallbackInfo& info) { return Copy(info, true, true); }
Napi::Value DeviceBuffer::DownloadAsync(const Napi::CallbackInfo& info) { return Copy(info, false, true); }

Napi::Value DeviceBuffer::Free(const Napi::CallbackInfo& info) {
  if (pending_ > 0) {
    free_requested_ = true;  // released when the last async copy settles
  } else {
    Release();
  }
  return info.Env().Undefined();
}

Napi::Value DeviceBuffer::GetByteLength(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(byte_length_));
}

Napi::Value DeviceBuffer::GetDeviceId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), device_id_); }

Napi::Value DeviceBuffer::GetFreed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), freed_ || free_requested_);
}

Napi::Value DeviceBuffer::GetFromArena(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), owner_ != nullptr);
}

void InitDeviceBuffer(Napi::Env env, Napi::Object exports) {
  Napi::Function constructor = DeviceBuffer::Define(env);
  env.GetInstanceData<AddonData>()->device_buffer = Napi::Persistent(constructor);
  exports.Set("DeviceBuffer", constructor);
}

}  // namespace switchyard
