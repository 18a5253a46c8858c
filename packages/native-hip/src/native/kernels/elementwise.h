// Launchers for the elementwise kernels in elementwise.hip. This header is included by host code
// built with the plain C++ compiler, so it declares only host functions and vendor-header types.
#pragma once

#include <cstddef>

#include "../vendor/gpu.h"

namespace switchyard::kernels {

enum class ElementwiseOp : int { kAdd = 0, kMul = 1, kRelu = 2 };

// Same-shape (no broadcasting) float32 fast path: out[i] = op(a[i], b[i]) for i < count.
// `b` is ignored for unary ops. Returns the launch status; errors of the kernel itself surface at
// the next synchronization.
hipError_t LaunchElementwiseF32(ElementwiseOp op, const float* a, const float* b, float* out, size_t count,
                                hipStream_t stream);

}  // namespace switchyard::kernels
