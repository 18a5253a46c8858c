// The `threads` argument of every entry point: 0 (or absent) = OpenMP's default, else the team size, at most
// kMaxThreads (as tensor_args.h's ReadThreadCount). Unchecked, an option of 100000 reached
// omp_set_num_threads and the next parallel region crashed the process creating the threads.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstdint>
#include <string>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>

namespace switchyard {

constexpr int64_t kMaxThreads = 1024;

// options.threads of a constructor (or of lstmForward's options).
inline int ThreadsOption(Napi::Env env, const Napi::Object& options, const std::string& ctx) {
  const int64_t threads = ReadInt(env, options, "threads", ctx, 0);
  if (threads < 0 || threads > kMaxThreads) {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.threads must be in [0, " + std::to_string(kMaxThreads) + "], got " + std::to_string(threads), true);
  }
  return static_cast<int>(threads);
}

// A positional threads argument: null / undefined = 0, else an integer in [0, kMaxThreads].
inline int ThreadsArgument(const Napi::Value& value, const std::string& ctx) {
  if (IsNullish(value)) return 0;
  const double threads = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1;
  if (!(threads >= 0 && threads <= static_cast<double>(kMaxThreads)) || threads != std::floor(threads)) {
    ThrowJs(value.Env(), "INVALID_ARGUMENT", ctx + ": threads must be an integer in [0, " + std::to_string(kMaxThreads) + "]", true);
  }
  return static_cast<int>(threads);
}

}  // namespace switchyard
