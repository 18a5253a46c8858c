// The elementwise loops for AVX-512 F/BW/DQ/VL (built with -mavx512f -mavx512bw -mavx512dq -mavx512vl). CMakeLists.txt gives this file its own flags and
// no precompiled header; elementwise_isa.cc calls in only when the CPU has the instructions.
#include <math.h>

#include <cstdint>
#include <cstring>

#include "elementwise_isa.h"

namespace switchyard::eltwise {

namespace {

#include "elementwise_math.inc"
#include "elementwise_loops.inc"

}  // namespace

const LoopTable& Avx512Loops() {
  static const LoopTable table = BuildLoopTable("avx512");
  return table;
}

}  // namespace switchyard::eltwise
