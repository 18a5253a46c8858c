// Which native class an object belongs to. node-addon-api dispatches an instance method by casting
// whatever `this` wraps to the method's class (ObjectWrap<T>::Unwrap), so
// `ConvPrimitive.prototype.runSync.call(aPoolPrimitive, ...)` would run Conv's code on a PoolKernel.
// Each class tags its instances in its constructor (napi_type_tag_object) and hides Unwrap with
// UnwrapTagged, which node-addon-api then calls instead (it looks the name up on the derived class):
// a receiver of another class, a plain object or a primitive throws a coded TypeError.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

#include <switchyard/errors.h>

namespace switchyard {

// A 128-bit tag from the class's JS name (FNV-1a; the upper half marks it as ours).
constexpr napi_type_tag ClassTag(const char* name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char* c = name; *c != '\0'; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
  return napi_type_tag{hash, 0x5377697463687964ull};
}

inline void TagInstance(Napi::Env env, const Napi::Value& self, const napi_type_tag& tag) {
  const napi_status status = napi_type_tag_object(env, self, &tag);
  if (status != napi_ok) ThrowJs(env, "RUNTIME", "could not tag a new native object");
}

// Whether `value` is an object that a constructor tagged with `tag` (never throws).
inline bool HasClassTag(Napi::Env env, const Napi::Value& value, const napi_type_tag& tag) {
  bool matches = false;
  napi_valuetype type = napi_undefined;
  if (napi_typeof(env, value, &type) == napi_ok && (type == napi_object || type == napi_function)) {
    if (napi_check_object_type_tag(env, value, &tag, &matches) != napi_ok) matches = false;
  }
  return matches;
}

// Whether `value` is an object of class T (T::kClass, tagged in T's constructor).
template <typename T>
bool IsInstance(Napi::Env env, const Napi::Value& value) {
  static constexpr napi_type_tag tag = ClassTag(T::kClass);
  return HasClassTag(env, value, tag);
}

// T::Unwrap for a class T with `kClass` (its JS name) whose constructor called TagInstance(ClassTag(kClass)).
template <typename T>
T* UnwrapTagged(const Napi::Object& wrapper) {
  Napi::Env env = wrapper.Env();
  if (!IsInstance<T>(env, wrapper)) ThrowJs(env, "INVALID_ARGUMENT", std::string(T::kClass) + ": method called on an object that is not a " + T::kClass, true);
  return Napi::ObjectWrap<T>::Unwrap(wrapper);
}

// The T behind an argument, or a coded TypeError naming `what` ("options.a must be a DeviceBuffer").
template <typename T>
T* UnwrapArgument(Napi::Env env, const Napi::Value& value, const std::string& what) {
  if (!IsInstance<T>(env, value)) ThrowJs(env, "INVALID_ARGUMENT", what + " must be a " + T::kClass, true);
  return Napi::ObjectWrap<T>::Unwrap(value.As<Napi::Object>());
}

}  // namespace switchyard
