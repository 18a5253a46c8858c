#include "device_buffer.h"

#include <cmath>
#include <string>

#include "addon_data.h"
#include "gpu_errors.h"
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

}  // namespace

Napi::Function DeviceBuffer::Define(Napi::Env env) {
  return DefineClass(env, "DeviceBuffer",
                     {
                         InstanceMethod<&DeviceBuffer::Upload>("upload"),
                         InstanceMethod<&DeviceBuffer::Download>("download"),
                         InstanceMethod<&DeviceBuffer::Free>("free"),
                         InstanceAccessor<&DeviceBuffer::GetByteLength>("byteLength"),
                         InstanceAccessor<&DeviceBuffer::GetDeviceId>("deviceId"),
                         InstanceAccessor<&DeviceBuffer::GetFreed>("freed"),
                     });
}

DeviceBuffer* DeviceBuffer::FromValue(Napi::Env env, const Napi::Value& value, const char* what) {
  // ObjectWrap::Unwrap trusts the caller about the class; check it, since JS can pass anything.
  AddonData* addon = env.GetInstanceData<AddonData>();
  if (!value.IsObject() || addon == nullptr || !value.As<Napi::Object>().InstanceOf(addon->device_buffer.Value())) {
    throw Napi::TypeError::New(env, std::string(what) + " must be a DeviceBuffer");
  }
  DeviceBuffer* buffer = Napi::ObjectWrap<DeviceBuffer>::Unwrap(value.As<Napi::Object>());
  if (buffer->data_ == nullptr && buffer->byte_length_ > 0) {
    throw Napi::Error::New(env, std::string(what) + " was freed");
  }
  return buffer;
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
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_id_));
  if (byte_length_ > 0) CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&data_, byte_length_));
}

DeviceBuffer::~DeviceBuffer() { Release(); }

void DeviceBuffer::Release() {
  if (data_ != nullptr) {
    // Nothing useful can be done with a failure here (often: the context is already torn down).
    (void)hipSetDevice(device_id_);
    (void)hipFree(data_);
    data_ = nullptr;
  }
}

Napi::Value DeviceBuffer::Upload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FromValue(env, info.This(), "this");  // throws when freed
  HostView host = HostViewOf(env, info[0], "upload");
  if (host.byte_length > byte_length_) {
    throw Napi::RangeError::New(env, "DeviceBuffer.upload: " + std::to_string(host.byte_length) + " bytes do not fit in " +
                                         std::to_string(byte_length_));
  }
  if (host.byte_length == 0) return env.Undefined();
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_id_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy), hipMemcpy(data_, host.data, host.byte_length, hipMemcpyHostToDevice));
  return env.Undefined();
}

Napi::Value DeviceBuffer::Download(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FromValue(env, info.This(), "this");  // throws when freed
  HostView host = HostViewOf(env, info[0], "download");
  if (host.byte_length > byte_length_) {
    throw Napi::RangeError::New(env, "DeviceBuffer.download: asked for " + std::to_string(host.byte_length) +
                                         " bytes from a buffer of " + std::to_string(byte_length_));
  }
  if (host.byte_length == 0) return env.Undefined();
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_id_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy), hipMemcpy(host.data, data_, host.byte_length, hipMemcpyDeviceToHost));
  return env.Undefined();
}

Napi::Value DeviceBuffer::Free(const Napi::CallbackInfo& info) {
  Release();
  return info.Env().Undefined();
}

Napi::Value DeviceBuffer::GetByteLength(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(byte_length_));
}

Napi::Value DeviceBuffer::GetDeviceId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), device_id_); }

Napi::Value DeviceBuffer::GetFreed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), data_ == nullptr && byte_length_ > 0);
}

}  // namespace switchyard
