// The elementwise loops for the x86-64 baseline (SSE2). CMakeLists.txt gives this file its own flags and
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

const LoopTable& GenericLoops() {
  static const LoopTable table = BuildLoopTable("generic");
  return table;
}

}  // namespace switchyard::eltwise
