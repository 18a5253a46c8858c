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
  throw Napi::TypeError::New(env, std::string("DeviceBuffer.") + method + ": expected a TypedArray or DataView");
}

// Copies one TypedArray's bytes between host and device on a worker thread. The baton is plain
// data (pointers and sizes); the JS objects stay alive through references released on the main thread.
class CopyWorker : public Napi::AsyncWorker {
 public:
  CopyWorker(Napi::Env env, DeviceBuffer* buffer, Napi::Object buffer_object, Napi::Object host_object, void* device_ptr,
             void* host_ptr, size_t bytes, bool to_device)
      : Napi::AsyncWorker(env, to_device ? "switchyard:uploadAsync" : "switchyard:downloadAsync"),
        deferred_(Napi::Promise::Deferred::New(env)),
        buffer_(buffer),
        buffer_ref_(Napi::Persistent(buffer_object)),
        host_ref_(Napi::Persistent(host_object)),
        device_(buffer->device_id()),
        device_ptr_(device_ptr),
        host_ptr_(host_ptr),
        bytes_(bytes),
        to_device_(to_device) {
    buffer_->BeginAsyncUse();
  }

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    status_ = to_device_ ? runtime::CopyHostToDevice(device_, device_ptr_, host_ptr_, bytes_)
                         : runtime::CopyDeviceToHost(device_, host_ptr_, device_ptr_, bytes_);
  }

  void OnOK() override {
    buffer_->EndAsyncUse();
    if (status_ == hipSuccess) {
      deferred_.Resolve(Env().Undefined());
      return;
    }
    Napi::Error error = Napi::Error::New(Env(), DescribeGpuStatus(to_device_ ? "uploadAsync" : "downloadAsync", status_));
    error.Set("code", Napi::String::New(Env(), hipGetErrorName(status_)));
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  DeviceBuffer* buffer_;
  Napi::ObjectReference buffer_ref_;
  Napi::ObjectReference host_ref_;
  int device_;
  void* device_ptr_;
  void* host_ptr_;
  size_t bytes_;
  bool to_device_;
  hipError_t status_ = hipSuccess;
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
  // ObjectWrap::Unwrap trusts the caller about the class; check it, since JS can pass anything.
  AddonData* addon = env.GetInstanceData<AddonData>();
  if (!value.IsObject() || addon == nullptr || !value.As<Napi::Object>().InstanceOf(addon->device_buffer.Value())) {
    throw Napi::TypeError::New(env, std::string(what) + " must be a DeviceBuffer");
  }
  DeviceBuffer* buffer = Napi::ObjectWrap<DeviceBuffer>::Unwrap(value.As<Napi::Object>());
  if (buffer->freed_ || buffer->free_requested_) {
    throw Napi::Error::New(env, std::string(what) + " was freed");
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
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
    throw Napi::TypeError::New(env, "new DeviceBuffer(deviceId, byteLength): both must be numbers");
  }
  const double device = info[0].As<Napi::Number>().DoubleValue();
  const double bytes = info[1].As<Napi::Number>().DoubleValue();
  if (!(device >= 0) || device != std::floor(device) || device > 1024) {
    throw Napi::RangeError::New(env, "DeviceBuffer: deviceId must be a non-negative integer");
  }
  // 2^48 bytes (256 TiB) is beyond any device; the bound keeps the double -> size_t cast exact.
  if (!(bytes >= 0) || bytes != std::floor(bytes) || bytes > 281474976710656.0) {
    throw Napi::RangeError::New(env, "DeviceBuffer: byteLength must be a non-negative integer below 2^48");
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
    if (!info[1].IsNumber()) throw Napi::TypeError::New(env, std::string("DeviceBuffer.") + method + ": byteOffset must be a number");
    offset_value = info[1].As<Napi::Number>().DoubleValue();
  }
  if (!(offset_value >= 0) || offset_value != std::floor(offset_value) || offset_value > static_cast<double>(byte_length_) ||
      static_cast<double>(host.byte_length) > static_cast<double>(byte_length_) - offset_value) {
    throw Napi::RangeError::New(env, std::string("DeviceBuffer.") + method + ": " + std::to_string(host.byte_length) +
                                         " bytes at offset " + std::to_string(offset_value) + " do not fit in " +
                                         std::to_string(byte_length_));
  }
  char* device_ptr = static_cast<char*>(data_) + static_cast<size_t>(offset_value);
  if (async) {
    auto* worker = new CopyWorker(env, this, info.This().As<Napi::Object>(), info[0].As<Napi::Object>(), device_ptr,
                                  host.data, host.byte_length, to_device);
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
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
