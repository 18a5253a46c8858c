#include "post_ops.h"

#include <utility>

#include <switchyard/errors.h>

namespace switchyard {

namespace {

constexpr std::pair<const char*, Activation> kNames[] = {
    {"none", Activation::kNone},           {"relu", Activation::kRelu},        {"leakyRelu", Activation::kLeakyRelu},
    {"clip", Activation::kClip},           {"sigmoid", Activation::kSigmoid},  {"tanh", Activation::kTanh},
    {"hardSigmoid", Activation::kHardSigmoid}, {"hardSwish", Activation::kHardSwish}, {"swish", Activation::kSwish},
    {"gelu", Activation::kGeluErf},        {"geluTanh", Activation::kGeluTanh}, {"elu", Activation::kElu},
    {"softplus", Activation::kSoftplus},   {"mish", Activation::kMish},
};

}  // namespace

Activation ParseActivation(const std::string& name, const std::string& context) {
  for (const auto& [known, activation] : kNames)
    if (name == known) return activation;
  std::string list;
  for (const auto& entry : kNames) list += (list.empty() ? "'" : ", '") + std::string(entry.first) + "'";
  throw CodedError("INVALID_ARGUMENT", context + ": activation must be one of " + list + ", got '" + name + "'");
}

void AppendActivation(dnnl::post_ops& ops, Activation activation, float alpha, float beta) {
  using alg = dnnl::algorithm;
  switch (activation) {
    case Activation::kNone: break;
    case Activation::kRelu: ops.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f); break;
    case Activation::kLeakyRelu: ops.append_eltwise(1.0f, alg::eltwise_relu, alpha, 0.0f); break;
    case Activation::kClip: ops.append_eltwise(1.0f, alg::eltwise_clip, alpha, beta); break;
    case Activation::kSigmoid: ops.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f); break;
    case Activation::kTanh: ops.append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f); break;
    case Activation::kHardSigmoid:
      // max(0, min(1, αx + β)): oneDNN 2.6 has no hardsigmoid kernel, but linear then clip is exact.
      ops.append_eltwise(1.0f, alg::eltwise_linear, alpha, beta);
      ops.append_eltwise(1.0f, alg::eltwise_clip, 0.0f, 1.0f);
      break;
    case Activation::kHardSwish: ops.append_eltwise(1.0f, alg::eltwise_hardswish, 0.0f, 0.0f); break;
    case Activation::kSwish: ops.append_eltwise(1.0f, alg::eltwise_swish, alpha, 0.0f); break;
    case Activation::kGeluErf: ops.append_eltwise(1.0f, alg::eltwise_gelu_erf, 0.0f, 0.0f); break;
    case Activation::kGeluTanh: ops.append_eltwise(1.0f, alg::eltwise_gelu_tanh, 0.0f, 0.0f); break;
    case Activation::kElu: ops.append_eltwise(1.0f, alg::eltwise_elu, alpha, 0.0f); break;
    case Activation::kSoftplus: ops.append_eltwise(1.0f, alg::eltwise_soft_relu, 0.0f, 0.0f); break;
    case Activation::kMish: ops.append_eltwise(1.0f, alg::eltwise_mish, 0.0f, 0.0f); break;
  }
}

void AppendEpilogue(dnnl::primitive_attr& attr, const Epilogue& e) {
  if (!e.sum && e.activation == Activation::kNone) return;
  dnnl::post_ops ops;
  // Order matters: ONNX's Conv → Add(Z) → Relu is relu(conv + Z), so the sum comes first.
  if (e.sum) ops.append_sum(e.sumScale);
  AppendActivation(ops, e.activation, e.alpha, e.beta);
  attr.set_post_ops(ops);
}

}  // namespace switchyard
