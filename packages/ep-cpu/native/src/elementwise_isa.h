// Which instruction set the elementwise loops run on. The loops are compiled three times
// (elementwise_isa_generic.cc: the x86-64 baseline, SSE2; elementwise_isa_avx2.cc: AVX2 + FMA;
// elementwise_isa_avx512.cc: AVX-512 F/BW/DQ/VL) and one is picked at run time from what this CPU has,
// so no build assumes an instruction set.
#pragma once

#include <string>

#include "elementwise_ops.h"

namespace switchyard::eltwise {

enum class Isa { kGeneric, kAvx2, kAvx512 };

const char* IsaName(Isa isa);

// Whether this CPU (and OS) can run the loops built for `isa`.
bool CpuSupports(Isa isa);

// The instruction set a primitive built with option `isa` runs on:
//   'auto' (default): the best this CPU has, capped by the environment variable
//     SWITCHYARD_CPU_VECTOR_ISA (avx512 | avx2 | generic) when it is set (as ONEDNN_MAX_CPU_ISA caps oneDNN);
//   'avx512' | 'avx2' | 'generic': exactly that one; CodedError('UNSUPPORTED') when the CPU lacks it.
// CodedError('INVALID_ARGUMENT') for any other name, in the option or the variable.
Isa ResolveIsa(const std::string& requested, const std::string& context);

const LoopTable& LoopsFor(Isa isa);

// Defined by the three translation units.
const LoopTable& GenericLoops();
const LoopTable& Avx2Loops();
const LoopTable& Avx512Loops();

}  // namespace switchyard::eltwise
