// Step ops for kernels/reduce.hip and kernels/norm.hip. Attribute blobs:
//   Reduce* [outer, reduce, inner]   Softmax/LogSoftmax [rows, cols]   LayerNorm [rows, cols, epsilon]
//   RMSNormalization [rows, cols, epsilon] (inputs x, scale [cols] of x's type)
// LayerNorm inputs: x, gamma, beta (-1 when absent), residual (optional, x's shape: added to x as it
// is read -- the EP folds Add → LayerNormalization into it); output: y. "LayerNormalizationResidual"
// is the same op, registered only so the EP can tell a build that takes the residual.
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

kernels::DType FloatDType(const TensorRef& t) {
  return t.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
}

std::string FloatIO(const StepArgs& args) {
  for (const TensorRef* t : args.inputs) if (t != nullptr && t->dtype != kFloat32 && t->dtype != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* t : args.outputs) if (t->dtype != args.in(0).dtype) return "output type differs from input";
  return "";
}

template <kernels::ReduceOp Op>
std::string CheckReduce(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = FloatIO(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != 3) return "needs [outer, reduce, inner]";
  const double outer = args->attrs[0], reduce = args->attrs[1], inner = args->attrs[2];
  if (outer * reduce * inner != static_cast<double>(args->in(0).count()) || outer * inner != static_cast<double>(args->out(0).count())) {
    return "[outer, reduce, inner] does not match the operand sizes";
  }
  return "";
}

template <kernels::ReduceOp Op>
hipError_t LaunchReduceStep(const StepArgs& args) {
  return kernels::LaunchReduce(Op, FloatDType(args.in(0)), args.in(0).data, static_cast<int64_t>(args.attrs[0]),
                               static_cast<int64_t>(args.attrs[1]), static_cast<int64_t>(args.attrs[2]), args.out(0).data, args.stream);
}

std::string CheckRowsCols(StepArgs* args, size_t min_inputs, size_t max_inputs, size_t nattrs) {
  std::string p = ExpectArity(*args, min_inputs, max_inputs, 1);
  if (p.empty()) p = FloatIO(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != nattrs) return "needs [rows, cols" + std::string(nattrs > 2 ? ", epsilon]" : "]");
  if (args->attrs[0] * args->attrs[1] != static_cast<double>(args->in(0).count())) return "[rows, cols] does not match the input size";
  return "";
}

template <bool Log>
std::string CheckSoftmax(StepArgs* args) { return CheckRowsCols(args, 1, 1, 2); }

template <bool Log>
hipError_t LaunchSoftmaxStep(const StepArgs& args) {
  return kernels::LaunchSoftmax(FloatDType(args.in(0)), args.in(0).data, args.out(0).data, static_cast<int64_t>(args.attrs[0]),
                                static_cast<int64_t>(args.attrs[1]), Log, args.stream);
}

std::string CheckLayerNorm(StepArgs* args) {
  std::string p = CheckRowsCols(args, 2, 4, 3);
  if (!p.empty()) return p;
  const double cols = args->attrs[1];
  if (static_cast<double>(args->in(1).count()) != cols) return "scale must have cols elements";
  if (args->inputs.size() > 2 && args->inputs[2] != nullptr && static_cast<double>(args->in(2).count()) != cols) return "bias must have cols elements";
  if (args->inputs.size() > 3 && args->inputs[3] != nullptr && args->inputs[3]->count() != args->in(0).count()) return "the residual must have x's size";
  return "";
}

hipError_t LaunchLayerNormStep(const StepArgs& args) {
  const void* beta = args.inputs.size() > 2 && args.inputs[2] != nullptr ? args.inputs[2]->data : nullptr;
  const void* residual = args.inputs.size() > 3 && args.inputs[3] != nullptr ? args.inputs[3]->data : nullptr;
  return kernels::LaunchLayerNorm(FloatDType(args.in(0)), args.in(0).data, residual, args.in(1).data, beta, args.out(0).data, nullptr,
                                  nullptr, nullptr, static_cast<int64_t>(args.attrs[0]), static_cast<int64_t>(args.attrs[1]),
                                  static_cast<float>(args.attrs[2]), args.stream);
}

std::string CheckRmsNorm(StepArgs* args) {
  std::string p = CheckRowsCols(args, 2, 2, 3);
  if (!p.empty()) return p;
  if (args->in(1).dtype != args->in(0).dtype) return "scale must have x's type";
  if (static_cast<double>(args->in(1).count()) != args->attrs[1]) return "scale must have cols elements";
  return "";
}

hipError_t LaunchRmsNormStep(const StepArgs& args) {
  return kernels::LaunchRmsNorm(FloatDType(args.in(0)), args.in(0).data, args.in(1).data, args.out(0).data,
                                static_cast<int64_t>(args.attrs[0]), static_cast<int64_t>(args.attrs[1]),
                                static_cast<float>(args.attrs[2]), args.stream);
}

const bool kReduce = &kernels::LaunchReduce != nullptr;

}  // namespace

#define SWITCHYARD_REDUCE(name, op) SWITCHYARD_STEP_OP(name, CheckReduce<kernels::ReduceOp::op>, LaunchReduceStep<kernels::ReduceOp::op>, kReduce)
SWITCHYARD_REDUCE("ReduceSum", kSum);
SWITCHYARD_REDUCE("ReduceMean", kMean);
SWITCHYARD_REDUCE("ReduceMax", kMax);
SWITCHYARD_REDUCE("ReduceMin", kMin);
SWITCHYARD_REDUCE("ReduceSumSquare", kSumSquare);
SWITCHYARD_REDUCE("ReduceL1", kL1);
SWITCHYARD_REDUCE("ReduceL2", kL2);
SWITCHYARD_REDUCE("ReduceLogSumExp", kLogSumExp);

SWITCHYARD_STEP_OP("Softmax", CheckSoftmax<false>, LaunchSoftmaxStep<false>, &kernels::LaunchSoftmax != nullptr);
SWITCHYARD_STEP_OP("LogSoftmax", CheckSoftmax<true>, LaunchSoftmaxStep<true>, &kernels::LaunchSoftmax != nullptr);
SWITCHYARD_STEP_OP("LayerNormalization", CheckLayerNorm, LaunchLayerNormStep, &kernels::LaunchLayerNorm != nullptr);
SWITCHYARD_STEP_OP("RMSNormalization", CheckRmsNorm, LaunchRmsNormStep, &kernels::LaunchRmsNorm != nullptr);
SWITCHYARD_STEP_OP("LayerNormalizationResidual", CheckLayerNorm, LaunchLayerNormStep, &kernels::LaunchLayerNorm != nullptr);

}  // namespace switchyard::plan
