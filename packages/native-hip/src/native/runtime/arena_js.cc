#include "arena_js.h"

#include <switchyard/errors.h>

#include <cmath>

namespace switchyard::runtime {

size_t ByteCountArg(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", std::string(what) + " must be a number of bytes", true);
  const double bytes = value.As<Napi::Number>().DoubleValue();
  if (!(bytes >= 0) || bytes != std::floor(bytes) || bytes > 281474976710656.0) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string(what) + " must be a non-negative integer below 2^48, got " +
                                         value.ToString().Utf8Value());
  }
  return static_cast<size_t>(bytes);
}

ArenaOptions ParseArenaOptions(Napi::Env env, const Napi::Value& value, const char* where) {
  ArenaOptions options;
  if (value.IsUndefined() || value.IsNull()) return options;
  if (!value.IsObject()) ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": options must be an object", true);
  Napi::Object object = value.As<Napi::Object>();
  Napi::Value limit = object.Get("gpuMemLimit");
  if (!limit.IsUndefined()) options.limit = ByteCountArg(env, limit, (std::string(where) + ": gpuMemLimit").c_str());
  Napi::Value strategy = object.Get("arenaExtendStrategy");
  if (!strategy.IsUndefined()) {
    const std::string name = strategy.IsString() ? strategy.As<Napi::String>().Utf8Value() : "";
    if (name == "nextPowerOfTwo") {
      options.strategy = ExtendStrategy::kNextPowerOfTwo;
    } else if (name == "sameAsRequested") {
      options.strategy = ExtendStrategy::kSameAsRequested;
    } else {
      ThrowJs(env, "INVALID_ARGUMENT", std::string(where) +
                                          ": arenaExtendStrategy must be 'nextPowerOfTwo' or 'sameAsRequested', got " +
                                          strategy.ToString().Utf8Value(), true);
    }
  }
  Napi::Value initial = object.Get("initialChunkBytes");
  if (!initial.IsUndefined()) {
    options.initial_chunk_bytes = ByteCountArg(env, initial, (std::string(where) + ": initialChunkBytes").c_str());
    if (options.initial_chunk_bytes == 0) ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": initialChunkBytes must be > 0");
  }
  return options;
}

Napi::Object ArenaStatsToJs(Napi::Env env, const ArenaStats& stats) {
  Napi::Object out = Napi::Object::New(env);
  auto set = [&](const char* key, size_t value) { out.Set(key, Napi::Number::New(env, static_cast<double>(value))); };
  set("inUse", stats.in_use);
  set("reserved", stats.reserved);
  set("peak", stats.peak);
  set("allocations", stats.allocations);
  set("frees", stats.frees);
  set("chunks", stats.chunks);
  set("largestFree", stats.largest_free);
  return out;
}

void ThrowArenaFailure(Napi::Env env, const char* where, size_t requested, const ArenaOptions& options,
                       const ArenaResult& result) {
  const bool oom = result.failure == ArenaFailure::kOverLimit || result.failure == ArenaFailure::kOutOfMemory;
  Napi::Error error = Napi::Error::New(env, std::string(where) + ": " + result.message);
  error.Set("code", Napi::String::New(env, oom ? "OUT_OF_MEMORY" : "GPU_ERROR"));
  error.Set("requestedBytes", Napi::Number::New(env, static_cast<double>(requested)));
  error.Set("limitBytes", Napi::Number::New(env, static_cast<double>(options.limit)));
  error.Set("reason", Napi::String::New(env, result.failure == ArenaFailure::kOverLimit ? "limit" : oom ? "device" : "error"));
  throw error;
}

}  // namespace switchyard::runtime
