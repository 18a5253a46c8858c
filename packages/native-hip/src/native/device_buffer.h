// DeviceBuffer: one allocation in GPU memory, owned by a JS object. Either its own hipMalloc
// (`new DeviceBuffer(deviceId, byteLength)`) or a block of a DeviceArena (`arena.allocate(bytes)`),
// which goes back to the arena's cache when freed.
#pragma once

#include <napi.h>

#include <switchyard/instance_tag.h>

#include <cstddef>
#include <memory>

#include "runtime/device_arena.h"

namespace switchyard {

class DeviceBuffer : public Napi::ObjectWrap<DeviceBuffer> {
 public:
  static constexpr const char* kClass = "DeviceBuffer";
  // Hides ObjectWrap::Unwrap, which node-addon-api calls before every method and getter: a receiver that
  // is not a DeviceBuffer throws a coded TypeError instead of being cast (switchyard/instance_tag.h).
  static DeviceBuffer* Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<DeviceBuffer>(wrapper); }
  static Napi::Function Define(Napi::Env env);
  // The buffer behind a JS value, or a thrown TypeError naming `what` when it is not a live one.
  static DeviceBuffer* FromValue(Napi::Env env, const Napi::Value& value, const char* what);
  // A new JS DeviceBuffer over `ptr` (from `owner`, which gets it back on free/GC).
  static Napi::Object Adopt(Napi::Env env, int device, void* ptr, size_t byte_length,
                            std::shared_ptr<runtime::DeviceMemoryOwner> owner);

  // [sync] new DeviceBuffer(deviceId, byteLength)
  explicit DeviceBuffer(const Napi::CallbackInfo& info);
  ~DeviceBuffer() override;

  void* data() const { return data_; }
  size_t byte_length() const { return byte_length_; }
  int device_id() const { return device_id_; }

  // Async copies hold the buffer: free() during one is deferred until it settles.
  void BeginAsyncUse() { ++pending_; }
  void EndAsyncUse();

 private:
  // [sync] upload(typedArray, byteOffset = 0): host bytes -> the buffer at byteOffset; for small copies.
  Napi::Value Upload(const Napi::CallbackInfo& info);
  // [sync] download(typedArray, byteOffset = 0): fills typedArray from the buffer at byteOffset.
  Napi::Value Download(const Napi::CallbackInfo& info);
  // [async] uploadAsync(typedArray, byteOffset = 0) -> Promise<void>: through pinned staging on the
  // device's stream; resolves when the bytes are on the device. Do not change typedArray meanwhile.
  Napi::Value UploadAsync(const Napi::CallbackInfo& info);
  // [async] downloadAsync(typedArray, byteOffset = 0) -> Promise<void>: resolves when typedArray holds
  // the bytes; ordered after all work queued on the device's stream.
  Napi::Value DownloadAsync(const Napi::CallbackInfo& info);
  // [sync] free(): releases the memory now rather than at garbage collection; idempotent.
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value GetByteLength(const Napi::CallbackInfo& info);
  Napi::Value GetDeviceId(const Napi::CallbackInfo& info);
  Napi::Value GetFreed(const Napi::CallbackInfo& info);
  Napi::Value GetFromArena(const Napi::CallbackInfo& info);

  Napi::Value Copy(const Napi::CallbackInfo& info, bool to_device, bool async);
  void Release();

  void* data_ = nullptr;
  size_t byte_length_ = 0;
  int device_id_ = 0;
  bool freed_ = false;
  bool free_requested_ = false;
  int pending_ = 0;
  std::shared_ptr<runtime::DeviceMemoryOwner> owner_;  // null: data_ is our own hipMalloc
};

}  // namespace switchyard
