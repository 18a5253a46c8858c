// Which compilation of vector_loops.h the dtype-generic kernels run: the best this CPU has, capped by
//   SWITCHYARD_CPU_VECTOR_ISA = avx512 | avx2 | generic   (when set), else by
//   ONEDNN_MAX_CPU_ISA (AVX2* caps at avx2; SSE41 / AVX at generic),
// so the AVX2 rerun of the native suites (scripts/test.sh) also runs these loops' AVX2 build.
// Read once per process.
#pragma once

#include <napi.h>

#include "vector_loops.h"

namespace switchyard {

const vec::Loops& VectorLoops();

// [sync] vectorIsa(): the name of the loops VectorLoops() picked ('avx512', 'avx2' or 'generic').
Napi::Value VectorIsaJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
