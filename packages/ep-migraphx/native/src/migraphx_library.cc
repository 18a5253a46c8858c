#include "migraphx_library.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>

#include "migraphx_api.h"

namespace switchyard {
namespace {

struct LoadedLibrary {
  void* handle = nullptr;
  std::string path;       // the candidate that loaded
  std::string real_path;  // the file it resolved to, symlinks followed
  migraphx_api::Api api{};
};

// Only touched from the JS thread.
LoadedLibrary g_library;

std::string LastDlError() {
  const char* message = dlerror();
  return message != nullptr ? message : "unknown dlopen error";
}

std::string ResolvedPath(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  char resolved[PATH_MAX];
  if (realpath(map->l_name, resolved) == nullptr) return map->l_name;
  return resolved;
}

// "…/libmigraphx_c.so.3.0.60400" -> "3.0.60400". The C API has no version function (as of
// MIGraphX 2.16), so the versioned file name is the best run-time evidence; "" when unversioned.
std::string VersionFromFileName(const std::string& path) {
  const std::string marker = ".so.";
  size_t at = path.rfind(marker);
  if (at == std::string::npos || path.find('/', at) != std::string::npos) return "";
  return path.substr(at + marker.size());
}

// Checks that this library numbers datatypes the way the header we declare against does: a shape of
// one element of each type must have that type's size. A library built from another header (ROCm 6.4's
// MIGraphX has no fp4x2, so float is 3 there, not 4) fails here instead of misreading every tensor.
std::string CheckDataTypes(const migraphx_api::Api& api) {
  for (size_t i = 0; i < migraphx_api::kDataTypeCount; i++) {
    const migraphx_api::DataTypeEntry& e = migraphx_api::kDataTypes[i];
    size_t one = 1;
    migraphx_api::Shape shape = nullptr;
    migraphx_api::Status status = api.shape_create(&shape, e.value, &one, 1);
    if (status != migraphx_api::kSuccess || shape == nullptr) {
      return "migraphx_shape_create(" + std::string(e.mgx_name) + " = " + std::to_string(e.value) + ") returned status " + std::to_string(status);
    }
    size_t bytes = 0;
    int type = -1;
    migraphx_api::Status s1 = api.shape_bytes(&bytes, shape);
    migraphx_api::Status s2 = api.shape_type(&type, shape);
    api.shape_destroy(shape);
    if (s1 != migraphx_api::kSuccess || s2 != migraphx_api::kSuccess) return "migraphx_shape_bytes/type failed on a datatype probe";
    if (bytes != e.bytes || type != e.value) {
      return "datatype " + std::to_string(e.value) + " is " + std::to_string(bytes) + " byte(s) wide in this library, but " +
             e.mgx_name + " (" + std::to_string(e.bytes) + ") in the MIGraphX 2.14-2.16 header this EP declares against";
    }
  }
  return "";
}

Napi::Value StringOrNull(Napi::Env env, const std::string& s) {
  return s.empty() ? env.Null() : Napi::String::New(env, s);
}

// Fills `result.operators` (or `operatorsError`) from the library's ONNX parser registry.
void ListOperators(Napi::Env env, const migraphx_api::Api& api, Napi::Object result) {
  auto size_fn = api.get_onnx_operators_size;
  auto name_fn = api.get_onnx_operator_name_at_index;
  if (size_fn == nullptr || name_fn == nullptr) {
    result.Set("operators", env.Null());
    result.Set("operatorsError", "the library does not export the ONNX operator registry functions");
    return;
  }
  size_t count = 0;
  migraphx_api::Status status = size_fn(&count);
  if (status != migraphx_api::kSuccess) {
    result.Set("operators", env.Null());
    result.Set("operatorsError", "migraphx_get_onnx_operators_size returned status " + std::to_string(status));
    return;
  }
  // A corrupt answer must not make us loop for minutes; ONNX has a few hundred operators.
  if (count > 100000) {
    result.Set("operators", env.Null());
    result.Set("operatorsError", "migraphx_get_onnx_operators_size reported " + std::to_string(count) + " operators");
    return;
  }
  Napi::Array names = Napi::Array::New(env, count);
  for (size_t i = 0; i < count; i++) {
    char* name = nullptr;  // points into the library's registry; not ours to free
    status = name_fn(&name, i);
    if (status != migraphx_api::kSuccess || name == nullptr) {
      result.Set("operators", env.Null());
      result.Set("operatorsError",
                 "migraphx_get_onnx_operator_name_at_index(" + std::to_string(i) + ") returned status " + std::to_string(status));
      return;
    }
    names.Set(static_cast<uint32_t>(i), Napi::String::New(env, name));
  }
  result.Set("operators", names);
  result.Set("operatorsError", env.Null());
}

Napi::Object Describe(Napi::Env env, Napi::Array attempts) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("loaded", true);
  result.Set("path", g_library.path);
  result.Set("realPath", StringOrNull(env, g_library.real_path));
  result.Set("version", StringOrNull(env, VersionFromFileName(g_library.real_path)));
  result.Set("error", env.Null());
  result.Set("attempts", attempts);
  ListOperators(env, g_library.api, result);
  const std::string types = CheckDataTypes(g_library.api);
  result.Set("dataTypeError", StringOrNull(env, types));
  Napi::Object optional = Napi::Object::New(env);
  optional.Set("quantizeBf16", g_library.api.quantize_bf16 != nullptr);
  optional.Set("exhaustiveTune", g_library.api.compile_options_set_exhaustive_tune_flag != nullptr);
  result.Set("optional", optional);
  return result;
}

}  // namespace

const migraphx_api::Api* LoadedApi() {
  return g_library.handle != nullptr ? &g_library.api : nullptr;
}

void* LoadedHandle() {
  return g_library.handle;
}

Napi::Value LoadLibrary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string candidatesError = "loadLibrary(candidates): candidates must be an array of strings";
  if (info.Length() < 1 || !info[0].IsArray()) ThrowJs(env, "INVALID_ARGUMENT", candidatesError, true);
  Napi::Array candidates = info[0].As<Napi::Array>();
  std::vector<std::string> paths;
  for (uint32_t i = 0; i < candidates.Length(); i++) {
    Napi::Value v = candidates.Get(i);
    if (!v.IsString()) ThrowJs(env, "INVALID_ARGUMENT", candidatesError, true);
    paths.push_back(v.As<Napi::String>().Utf8Value());
  }

  Napi::Array attempts = Napi::Array::New(env);
  if (g_library.handle != nullptr) return Describe(env, attempts);

  std::string last_error = "no candidates were given";
  for (const std::string& path : paths) {
    if (path.empty() || path.find('\0') != std::string::npos) continue;
    dlerror();  // clear any stale message
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    Napi::Object attempt = Napi::Object::New(env);
    attempt.Set("path", path);
    if (handle == nullptr) {
      last_error = LastDlError();
      attempt.Set("error", last_error);
      attempts.Set(attempts.Length(), attempt);
      continue;
    }
    // A file that loads but lacks the C API (a stub, another library, a too-old MIGraphX) is no
    // better than a missing one: say so and try the next candidate.
    migraphx_api::Api api{};
    const std::string missing = migraphx_api::Resolve(handle, &api);
    if (!missing.empty()) {
      last_error = path + " loaded but does not export " + missing + " (not MIGraphX's C library, or too old)";
      dlclose(handle);
      attempt.Set("error", last_error);
      attempts.Set(attempts.Length(), attempt);
      continue;
    }
    attempt.Set("error", env.Null());
    attempts.Set(attempts.Length(), attempt);
    g_library.handle = handle;
    g_library.path = path;
    g_library.real_path = ResolvedPath(handle);
    g_library.api = api;
    return Describe(env, attempts);
  }

  Napi::Object result = Napi::Object::New(env);
  result.Set("loaded", false);
  result.Set("path", env.Null());
  result.Set("realPath", env.Null());
  result.Set("version", env.Null());
  result.Set("error", last_error);
  result.Set("attempts", attempts);
  result.Set("operators", env.Null());
  result.Set("operatorsError", env.Null());
  result.Set("dataTypeError", env.Null());
  result.Set("optional", env.Null());
  return result;
}

Napi::Value TargetError(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string name = ExpectString(env, info[0], "targetError(name): name");
  if (g_library.handle == nullptr) ThrowJs(env, "RUNTIME", "targetError: no MIGraphX library is loaded (call loadLibrary first)");
  migraphx_api::Target target = nullptr;
  migraphx_api::Status status = g_library.api.target_create(&target, name.c_str());
  if (target != nullptr) g_library.api.target_destroy(target);
  if (status == migraphx_api::kSuccess && target != nullptr) return env.Null();
  return Napi::String::New(env, "migraphx_target_create(\"" + name + "\") returned status " + std::to_string(status));
}

}  // namespace switchyard
