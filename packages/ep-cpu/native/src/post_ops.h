// Fused epilogues shared by the conv, matmul and gemm kernels: an optional `sum` (dst += Z, for a
// residual Add) followed by an optional elementwise activation, as oneDNN post-ops.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

namespace switchyard {

enum class Activation { kNone, kRelu, kLeakyRelu, kClip };

struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.0f;  // LeakyRelu: slope; Clip: min
  float beta = 0.0f;   // Clip: max
  bool sum = false;    // dst = op(...) + sumScale * dst_before (dst pre-filled with Z)
  float sumScale = 1.0f;
};

// 'none' | 'relu' | 'leakyRelu' | 'clip'; throws CodedError('INVALID_ARGUMENT') otherwise.
Activation ParseActivation(const std::string& name, const std::string& context);

// Adds the epilogue's post-ops (sum first, then the activation) to `attr`; nothing when it is empty.
void AppendEpilogue(dnnl::primitive_attr& attr, const Epilogue& epilogue);

}  // namespace switchyard
