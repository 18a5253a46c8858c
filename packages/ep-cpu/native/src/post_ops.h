// Fused epilogues shared by the conv, matmul and gemm kernels: an optional `sum` (dst += Z, for a
// residual Add) followed by an optional elementwise activation, as oneDNN post-ops.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

namespace switchyard {

// The activations a conv or product fuses: every ONNX activation oneDNN 2.6 has an eltwise kernel for,
// plus the decomposed forms exporters write (x·sigmoid(αx), HardSwish), which the CPU EP's fusions
// recognise. alpha/beta: LeakyRelu slope; Clip min/max; HardSigmoid α/β; Swish α; Elu α.
enum class Activation {
  kNone,
  kRelu,
  kLeakyRelu,
  kClip,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kSwish,
  kGeluErf,
  kGeluTanh,
  kElu,
  kSoftplus,
  kMish,
};

struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
  bool sum = false;    // dst = op(...) + sumScale * dst_before (dst pre-filled with Z)
  float sumScale = 1.0f;
};

// The activations ActivateAvx2 (avx2_epilogue.h) computes: the addon's own AVX2 convs take only these.
constexpr bool Avx2Activates(Activation activation) {
  return activation == Activation::kNone || activation == Activation::kRelu || activation == Activation::kLeakyRelu ||
         activation == Activation::kClip || activation == Activation::kHardSwish;
}

// The JS names ('none' | 'relu' | 'leakyRelu' | 'clip' | 'sigmoid' | 'tanh' | 'hardSigmoid' |
// 'hardSwish' | 'swish' | 'gelu' | 'geluTanh' | 'elu' | 'softplus' | 'mish'); throws
// CodedError('INVALID_ARGUMENT') otherwise.
Activation ParseActivation(const std::string& name, const std::string& context);

// Appends the activation's eltwise post-op(s) (HardSigmoid takes two); nothing for kNone.
void AppendActivation(dnnl::post_ops& ops, Activation activation, float alpha, float beta);

// Adds the epilogue's post-ops (sum first, then the activation) to `attr`; nothing when it is empty.
void AppendEpilogue(dnnl::primitive_attr& attr, const Epilogue& epilogue);

}  // namespace switchyard
