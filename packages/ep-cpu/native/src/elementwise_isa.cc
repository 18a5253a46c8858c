#include "elementwise_isa.h"

#include <cstdlib>

#include <switchyard/errors.h>

namespace switchyard::eltwise {

namespace {

bool ParseIsa(const std::string& name, Isa* isa) {
  if (name == "generic") *isa = Isa::kGeneric;
  else if (name == "avx2") *isa = Isa::kAvx2;
  else if (name == "avx512") *isa = Isa::kAvx512;
  else return false;
  return true;
}

Isa BestSupported() {
  static const Isa best = CpuSupports(Isa::kAvx512) ? Isa::kAvx512 : CpuSupports(Isa::kAvx2) ? Isa::kAvx2 : Isa::kGeneric;
  return best;
}

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    default: return "generic";
  }
}

bool CpuSupports(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default:
      return true;
  }
}

Isa ResolveIsa(const std::string& requested, const std::string& context) {
  Isa isa = Isa::kGeneric;
  if (requested == "auto") {
    const char* cap = std::getenv("SWITCHYARD_CPU_VECTOR_ISA");
    if (!cap || !*cap) return BestSupported();
    Isa limit = Isa::kGeneric;
    if (!ParseIsa(cap, &limit)) {
      throw CodedError("INVALID_ARGUMENT", context + ": SWITCHYARD_CPU_VECTOR_ISA must be 'avx512', 'avx2' or 'generic', got '" + cap + "'");
    }
    return static_cast<int>(limit) < static_cast<int>(BestSupported()) ? limit : BestSupported();
  }
  if (!ParseIsa(requested, &isa)) {
    throw CodedError("INVALID_ARGUMENT", context + ": isa must be 'auto', 'avx512', 'avx2' or 'generic', got '" + requested + "'");
  }
  if (!CpuSupports(isa)) throw CodedError("UNSUPPORTED", context + ": this CPU cannot run the " + IsaName(isa) + " loops");
  return isa;
}

const LoopTable& LoopsFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return Avx512Loops();
    case Isa::kAvx2: return Avx2Loops();
    default: return GenericLoops();
  }
}

}  // namespace switchyard::eltwise
