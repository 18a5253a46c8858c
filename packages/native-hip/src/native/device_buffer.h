// DeviceBuffer: one allocation in GPU memory, owned by a JS object. The first cut of device memory;
// the caching arena (later) hands out slices of these instead of calling hipMalloc per tensor.
#pragma once

#include <napi.h>

#include <cstddef>

namespace switchyard {

class DeviceBuffer : public Napi::ObjectWrap<DeviceBuffer> {
 public:
  static Napi::Function Define(Napi::Env env);
  // The buffer behind a JS value, or a thrown TypeError naming `what` when it is not a live one.
  static DeviceBuffer* FromValue(Napi::Env env, const Napi::Value& value, const char* what);

  // [sync] new DeviceBuffer(deviceId, byteLength)
  explicit DeviceBuffer(const Napi::CallbackInfo& info);
  ~DeviceBuffer() override;

  void* data() const { return data_; }
  size_t byte_length() const { return byte_length_; }
  int device_id() const { return device_id_; }

 private:
  // [sync] upload(typedArray): copies host bytes to the start of the buffer.
  Napi::Value Upload(const Napi::CallbackInfo& info);
  // [sync] download(typedArray): copies the first typedArray.byteLength bytes back to the host.
  Napi::Value Download(const Napi::CallbackInfo& info);
  // [sync] free(): releases the memory now rather than at garbage collection; idempotent.
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value GetByteLength(const Napi::CallbackInfo& info);
  Napi::Value GetDeviceId(const Napi::CallbackInfo& info);
  Napi::Value GetFreed(const Napi::CallbackInfo& info);

  void Release();

  void* data_ = nullptr;
  size_t byte_length_ = 0;
  int device_id_ = 0;
};

}  // namespace switchyard
