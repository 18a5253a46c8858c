// BiasActivation: y = act(x + bias) with the bias along x's last axis, in one pass (kernels/epilogue.hip).
// The EP folds MatMul → Add(bias) → Div/Erf/Add/Mul/Mul (torch's exported GELU) into MatMul plus this
// step (plan/gelu-fold.ts): one pass over the FFN activation instead of six.
//   attrs [unary op (kernels::UnaryOp number), alpha, beta]; inputs X, B (-1 when absent); output Y (X's shape).
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

std::string CheckBiasActivation(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 2, 1);
  if (!p.empty()) return p;
  const TensorRef& x = args->in(0);
  if (x.dtype != kFloat32 && x.dtype != kFloat16) return "operands must be float32 or float16";
  if (x.dims.empty()) return "x needs at least one axis";
  if (args->out(0).dtype != x.dtype || args->out(0).dims != x.dims) return "y must have x's type and shape";
  if (args->inputs.size() > 1 && args->inputs[1] != nullptr) {
    const TensorRef& b = *args->inputs[1];
    if (b.dtype != x.dtype || b.count() != x.dims.back()) return "the bias must hold one value per element of x's last axis";
  }
  if (args->attrs.size() != 3) return "needs [unary op, alpha, beta]";
  const int op = static_cast<int>(args->attrs[0]);
  if (op < 0 || op >= kernels::kUnaryOpCount) return "unknown unary op " + std::to_string(op);
  return "";
}

hipError_t LaunchBiasActivationStep(const StepArgs& a) {
  const TensorRef& x = a.in(0);
  const void* bias = a.inputs.size() > 1 && a.inputs[1] != nullptr ? a.inputs[1]->data : nullptr;
  kernels::UnaryParams params;
  params.alpha = static_cast<float>(a.attrs[1]);
  params.beta = static_cast<float>(a.attrs[2]);
  const int64_t channels = x.dims.back();
  const int64_t outer = channels == 0 ? 0 : x.count() / channels;
  const kernels::DType dt = x.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
  return kernels::LaunchBiasActivation(dt, x.data, bias, nullptr, a.out(0).data, outer, channels, 1,
                                       static_cast<kernels::UnaryOp>(static_cast<int>(a.attrs[0])), params,
                                       kernels::ResidualPlacement::kBeforeActivation, a.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("BiasActivation", CheckBiasActivation, LaunchBiasActivationStep, &kernels::LaunchBiasActivation != nullptr);

}  // namespace switchyard::plan
