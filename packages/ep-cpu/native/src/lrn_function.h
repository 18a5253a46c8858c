// LRN (local response normalization across channels), float32: y = x / (bias + alpha / size · Σ x²)^beta, the
// sum over channels [c − ⌊(size−1)/2⌋, c + ⌈(size−1)/2⌉] clipped to [0, C). [sync], on the calling thread's
// OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] lrn(x, y, n, c, spatial, size, alpha, beta, bias, threads?): x and y are [n, c, spatial]. Each
// window sum adds its channels' squares in order, in double, and the power is taken in double, as the TS
// kernel computes them; y is rounded once.
Napi::Value LrnJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
