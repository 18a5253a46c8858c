#include "vector_isa.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include <switchyard/errors.h>

namespace switchyard {

namespace {

enum Level { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };

Level CpuLevel() {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  return avx512 ? kAvx512 : avx2 ? kAvx2 : kGeneric;
}

// The cap the environment sets; kAvx512 (no cap) when nothing is set or the value is not understood.
Level EnvironmentCap() {
  const char* ours = std::getenv("SWITCHYARD_CPU_VECTOR_ISA");
  if (ours && *ours) {
    const std::string v(ours);
    if (v == "generic") return kGeneric;
    if (v == "avx2") return kAvx2;
    return kAvx512;
  }
  const char* onednn = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (onednn && *onednn) {
    const std::string v(onednn);
    if (v.rfind("AVX512", 0) == 0 || v == "ALL") return kAvx512;
    if (v.rfind("AVX2", 0) == 0) return kAvx2;
    if (v == "SSE41" || v == "AVX") return kGeneric;
  }
  return kAvx512;
}

const vec::Loops& LoopsAt(Level level) {
  if (level == kAvx512) return vec::Avx512Loops();
  if (level == kAvx2) return vec::Avx2Loops();
  return vec::GenericLoops();
}

const vec::Loops* Pick() {
  const Level cpu = CpuLevel(), cap = EnvironmentCap();
  return &LoopsAt(cpu < cap ? cpu : cap);
}

std::atomic<const vec::Loops*> current{nullptr};

}  // namespace

const vec::Loops& VectorLoops() {
  const vec::Loops* loops = current.load(std::memory_order_acquire);
  if (!loops) {
    loops = Pick();
    current.store(loops, std::memory_order_release);
  }
  return *loops;
}

Napi::Value VectorIsaJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsUndefined()) {
    if (!info[0].IsString()) ThrowJs(env, "INVALID_ARGUMENT", "vectorIsa: set must be 'avx512', 'avx2', 'generic' or 'auto'", true);
    const std::string name = info[0].As<Napi::String>().Utf8Value();
    if (name == "auto") {
      current.store(Pick(), std::memory_order_release);
    } else {
      Level level;
      if (name == "avx512") level = kAvx512;
      else if (name == "avx2") level = kAvx2;
      else if (name == "generic") level = kGeneric;
      else ThrowJs(env, "INVALID_ARGUMENT", "vectorIsa: set must be 'avx512', 'avx2', 'generic' or 'auto', got '" + name + "'", true);
      if (level > CpuLevel()) ThrowJs(env, "UNSUPPORTED", "vectorIsa: this CPU cannot run the " + name + " loops");
      current.store(&LoopsAt(level), std::memory_order_release);
    }
  }
  return Napi::String::New(env, VectorLoops().isa);
}

}  // namespace switchyard
