#include "vector_isa.h"

#include <cstdlib>
#include <string>

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

const vec::Loops& Pick() {
  const Level cpu = CpuLevel(), cap = EnvironmentCap();
  const Level level = cpu < cap ? cpu : cap;
  if (level == kAvx512) return vec::Avx512Loops();
  if (level == kAvx2) return vec::Avx2Loops();
  return vec::GenericLoops();
}

}  // namespace

const vec::Loops& VectorLoops() {
  static const vec::Loops& loops = Pick();
  return loops;
}

Napi::Value VectorIsaJs(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), VectorLoops().isa); }

}  // namespace switchyard
