// The loops of vector_loops.h for AVX-512 F/BW/DQ/VL (built with -mavx512f -mavx512bw -mavx512dq -mavx512vl). CMakeLists.txt gives this file its own flags and no
// precompiled header; vector_isa.cc calls in only when the CPU has the instructions.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "vector_loops.h"

namespace switchyard::vec {

namespace {

#include "vector_loops_movement.inc"
#include "vector_loops_normalize.inc"
#include "vector_loops_pool.inc"
#include "vector_loops_recurrence.inc"
#include "vector_loops_logistic.inc"
#include "vector_loops_math.inc"

}  // namespace

const Loops& Avx512Loops() {
  static const Loops loops = BuildLoops("avx512");
  return loops;
}

}  // namespace switchyard::vec
