#include "resize_loops.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace switchyard {

namespace {

// oneDNN's ISA values are supersets by bits (avx2 = 0x7 ⊂ avx512_core = 0x27 ⊂ ...), so a mask test
// asks "at least this"; the effective ISA already honours ONEDNN_MAX_CPU_ISA.
bool AtLeast(dnnl::cpu_isa effective, dnnl::cpu_isa wanted) {
  const auto e = static_cast<unsigned>(effective), w = static_cast<unsigned>(wanted);
  return (e & w) == w;
}

const ResizeLoops& Choose() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  // The flags each file was built with, checked on the CPU as well (oneDNN's names do not promise FMA).
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (avx512 && AtLeast(isa, dnnl::cpu_isa::avx512_core)) return resize_loops::kAvx512;
  if (avx2 && AtLeast(isa, dnnl::cpu_isa::avx2)) return resize_loops::kAvx2;
  return resize_loops::kBase;
}

}  // namespace

const ResizeLoops& SelectedResizeLoops() {
  static const ResizeLoops& loops = Choose();
  return loops;
}

}  // namespace switchyard
