// Sigmoid and Swish (x·σ(αx)) after a conv as the addon's own vector pass over the output, instead of
// oneDNN's eltwise post-op. oneDNN 2.6 evaluates exp-based post-ops at 0.25–0.3 ns an element inside its
// jit_1x1 / jit_dw / direct conv kernels (on an AVX-512 EPYC, 1 thread: a 16 → 96 1x1 conv on 112 × 112 took
// 215 µs plain, 545 µs with the Swish post-op); the conv without it plus this pass took ~410. SiLU networks
// (EfficientNet, YOLO-style detectors) put it after nearly every conv. Cheap activations (ReLU, Clip,
// HardSwish ...) stay post-ops: those cost oneDNN almost nothing.
#pragma once

#include <cstdint>

#include "algorithm_mode.h"
#include "memory_desc.h"
#include "post_ops.h"

namespace switchyard {

struct ActivationPass {
  Activation activation = Activation::kNone;  // kSigmoid or kSwish when the pass runs
  float alpha = 1.0f;                         // Swish's α
  bool active() const { return activation != Activation::kNone; }
};

// If `epilogue`'s activation is one the pass computes and `mode` allows it, moves the activation out of the
// epilogue (a sum stays: it comes first either way) into the returned pass. kAuto yields to the
// environment variable SWITCHYARD_CPU_ACTIVATION_PASS (auto | always | never) and then means: wherever the
// vector loops run an AVX2 or AVX-512 build (vector_isa.h), where the pass measured faster than the post-op.
ActivationPass TakeActivationPass(Epilogue& epilogue, AlgorithmMode mode);

// Applies the pass in place to `data`, a tensor of `dims` in layout `block` (0 plain, 8 / 16 channel-blocked:
// the last block's padded channels stay zero), over the calling thread's OpenMP team.
void ApplyActivationPass(const ActivationPass& pass, float* data, const Dims& dims, int64_t block);

// " + sigmoid pass" / " + swish pass", or "" when inactive: appended to a kernel's implementation name.
const char* ActivationPassSuffix(const ActivationPass& pass);

}  // namespace switchyard
