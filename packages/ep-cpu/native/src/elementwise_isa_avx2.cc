// The elementwise loops for AVX2 + FMA (built with -mavx2 -mfma). CMakeLists.txt gives this file its own flags and
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

const LoopTable& Avx2Loops() {
  static const LoopTable table = BuildLoopTable("avx2");
  return table;
}

}  // namespace switchyard::eltwise
