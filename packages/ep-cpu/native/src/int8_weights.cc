#include "int8_weights.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace switchyard {

bool ExactInt8Products() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx:
    case dnnl::cpu_isa::avx2_vnni:
      return true;
    default:
      return false;
  }
}

int32_t SignedZeroPoint(RawWeights zeroPoints, int64_t count, int64_t channel, bool weightsSigned) {
  if (count == 0) return weightsSigned ? 0 : -128;
  const int64_t i = count == 1 ? 0 : channel;
  return weightsSigned ? static_cast<const int8_t*>(zeroPoints.data)[i] : static_cast<int32_t>(static_cast<const uint8_t*>(zeroPoints.data)[i]) - 128;
}

bool NeedsSplit(RawWeights w, int64_t count, WeightSplit mode) {
  if (mode == WeightSplit::kAlways) return true;
  if (ExactInt8Products()) return false;
  for (int64_t i = 0; i < count; ++i) {
    const int32_t v = SignedWeight(w, i);
    if (v > 64 || v < -64) return true;
  }
  return false;
}

}  // namespace switchyard
