#include "post_ops.h"

#include "errors.h"

namespace switchyard {

Activation ParseActivation(const std::string& name, const std::string& context) {
  if (name == "none") return Activation::kNone;
  if (name == "relu") return Activation::kRelu;
  if (name == "leakyRelu") return Activation::kLeakyRelu;
  if (name == "clip") return Activation::kClip;
  throw CodedError("INVALID_ARGUMENT", context + ": activation must be 'none', 'relu', 'leakyRelu' or 'clip', got '" + name + "'");
}

void AppendEpilogue(dnnl::primitive_attr& attr, const Epilogue& e) {
  if (!e.sum && e.activation == Activation::kNone) return;
  dnnl::post_ops ops;
  // Order matters: ONNX's Conv → Add(Z) → Relu is relu(conv + Z), so the sum comes first.
  if (e.sum) ops.append_sum(e.sumScale);
  switch (e.activation) {
    case Activation::kNone: break;
    case Activation::kRelu: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f); break;
    case Activation::kLeakyRelu: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, e.alpha, 0.0f); break;
    case Activation::kClip: ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, e.alpha, e.beta); break;
  }
  attr.set_post_ops(ops);
}

}  // namespace switchyard
