// MeanVarianceNormalization over any set of axes, float32: y = (x − E[x]) / (√(E[x²] − E[x]²) + 1e-9), the
// expectations over the normalized axes, as the ONNX function (and the TS kernel) define it. [sync], on the
// calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] meanVariance(x, y, dims, axes, threads?): x and y have Π dims elements; axes are distinct or
// repeated indices into dims (already non-negative). Statistics accumulate in double.
Napi::Value MeanVarianceJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
