// Which compilation of vector_loops.h the dtype-generic kernels run: the best this CPU has, capped by
//   SWITCHYARD_CPU_VECTOR_ISA = avx512 | avx2 | generic   (when set), else by
//   ONEDNN_MAX_CPU_ISA (AVX2* caps at avx2; SSE41 / AVX at generic),
// so the AVX2 rerun of the native suites (scripts/test.sh) also runs these loops' AVX2 build.
// Read once per process; vectorIsa(name) switches it (tests run every build in one process).
#pragma once

#include <napi.h>

#include "vector_loops.h"

namespace switchyard {

const vec::Loops& VectorLoops();

// [sync] vectorIsa(set?): the name of the loops VectorLoops() runs ('avx512', 'avx2' or 'generic'). With
// `set` ('avx512' | 'avx2' | 'generic' | 'auto'), first switches to that build for the whole process
// ('auto': the environment's choice); a build this CPU cannot run is an UNSUPPORTED error.
Napi::Value VectorIsaJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
