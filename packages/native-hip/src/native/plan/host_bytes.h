// The bytes behind a JS TypedArray, for the plan's JS entry points (inputs, outputs, constants).
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>

namespace switchyard::plan {

struct HostBytes {
  void* data = nullptr;
  size_t bytes = 0;
};

// False when `value` is not a TypedArray.
inline bool HostBytesOf(const Napi::Value& value, HostBytes* out) {
  if (!value.IsTypedArray()) return false;
  Napi::TypedArray a = value.As<Napi::TypedArray>();
  out->data = static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset();
  out->bytes = a.ByteLength();
  return true;
}

}  // namespace switchyard::plan
