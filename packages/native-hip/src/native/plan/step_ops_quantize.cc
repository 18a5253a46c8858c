// Step ops of the int8 dynamic-quantization family (kernels/quantize.hip). Attribute blobs:
//   DynamicQuantizeLinear []; input x float32; outputs y uint8 (x's shape), y_scale float32 and
//     y_zero_point uint8 (one element each); a workspace of kernels::kQuantRangeScratchBytes.
//   QuantShift [channels, inner]; inputs x int8/uint8, zero point of x's type (1 or `channels` values, or
//     absent); output float32 of x's size: x - zero point[(i / inner) % channels]. The EP's ConvInteger
//     and MatMulInteger read their operands through it (ep-rocm plan/integer-ops.ts).
//   Rescale [channels, inner, relu]; inputs x float32, scale float32 (one value), bias float32
//     (`channels` values, or absent); output float32 of x's size: the Mul by the scales, the bias Add
//     and the Relu after a ConvInteger, as one pass (x viewed as [planes, inner], plane p in channel
//     p % channels).
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

std::string CheckDynamicQuantize(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 3);
  if (p.empty()) p = ExpectDType(args->in(0), kFloat32, "x");
  if (p.empty()) p = ExpectDType(args->out(0), kUint8, "y");
  if (p.empty()) p = ExpectDType(args->out(1), kFloat32, "y_scale");
  if (p.empty()) p = ExpectDType(args->out(2), kUint8, "y_zero_point");
  if (!p.empty()) return p;
  if (args->out(0).count() != args->in(0).count()) return "y's size differs from x's";
  if (args->out(1).count() != 1 || args->out(2).count() != 1) return "y_scale and y_zero_point hold one value each";
  args->workspace_bytes = kernels::kQuantRangeScratchBytes;
  return args->workspace == nullptr ? "needs a workspace for the range pass" : "";
}

hipError_t LaunchDynamicQuantizeStep(const StepArgs& a) {
  return kernels::LaunchDynamicQuantize(static_cast<const float*>(a.in(0).data), a.in(0).count(), static_cast<uint8_t*>(a.out(0).data),
                                        static_cast<float*>(a.out(1).data), static_cast<uint8_t*>(a.out(2).data),
                                        static_cast<float*>(a.workspace), a.stream);
}

std::string CheckQuantShift(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 2, 1);
  if (p.empty()) p = ExpectDType(args->out(0), kFloat32, "the shifted operand");
  if (!p.empty()) return p;
  const int t = args->in(0).dtype;
  if (t != kInt8 && t != kUint8) return "x must be int8 or uint8";
  if (args->attrs.size() != 2 || args->attrs[0] < 1 || args->attrs[1] < 1) return "needs [channels, inner], each at least 1";
  if (args->out(0).count() != args->in(0).count()) return "the output's size differs from x's";
  const TensorRef* zp = args->inputs.size() > 1 ? args->inputs[1] : nullptr;
  if (zp != nullptr) {
    if (zp->dtype != t) return "the zero point's type differs from x's";
    const int64_t channels = static_cast<int64_t>(args->attrs[0]);
    if (zp->count() != 1 && zp->count() != channels) return "the zero point holds neither one value nor one per channel";
  }
  return "";
}

hipError_t LaunchQuantShiftStep(const StepArgs& a) {
  const TensorRef* zp = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  // A one-value zero point is per tensor whatever `channels` says.
  const int64_t channels = zp != nullptr && zp->count() == 1 ? 1 : static_cast<int64_t>(a.attrs[0]);
  const kernels::DType t = a.in(0).dtype == kInt8 ? kernels::DType::kInt8 : kernels::DType::kUint8;
  return kernels::LaunchQuantShift(t, a.in(0).data, zp != nullptr ? zp->data : nullptr, a.in(0).count(), channels,
                                   static_cast<int64_t>(a.attrs[1]), static_cast<float*>(a.out(0).data), a.stream);
}

std::string CheckRescale(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (p.empty()) p = ExpectDType(args->in(0), kFloat32, "x");
  if (p.empty()) p = ExpectDType(args->in(1), kFloat32, "the scale");
  if (p.empty()) p = ExpectDType(args->out(0), kFloat32, "the output");
  if (!p.empty()) return p;
  if (args->attrs.size() != 3 || args->attrs[0] < 1 || args->attrs[1] < 1) return "needs [channels, inner, relu]";
  const int64_t channels = static_cast<int64_t>(args->attrs[0]), inner = static_cast<int64_t>(args->attrs[1]);
  const int64_t count = args->in(0).count();
  if (args->out(0).count() != count || count % (channels * inner) != 0) return "x and the output must be [planes, inner] of the same size";
  if (args->in(1).count() != 1) return "the scale holds one value";
  const TensorRef* bias = args->inputs.size() > 2 ? args->inputs[2] : nullptr;
  if (bias != nullptr && (bias->dtype != kFloat32 || bias->count() != channels)) return "the bias must be float32, one value per channel";
  return "";
}

hipError_t LaunchRescaleStep(const StepArgs& a) {
  const TensorRef* bias = a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  const int64_t channels = static_cast<int64_t>(a.attrs[0]), inner = static_cast<int64_t>(a.attrs[1]);
  return kernels::LaunchRescale(static_cast<const float*>(a.in(0).data), static_cast<const float*>(a.in(1).data),
                                bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, static_cast<float*>(a.out(0).data),
                                a.in(0).count() / inner, channels, inner, a.attrs[2] != 0, a.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("DynamicQuantizeLinear", CheckDynamicQuantize, LaunchDynamicQuantizeStep, &kernels::LaunchDynamicQuantize != nullptr);
SWITCHYARD_STEP_OP("QuantShift", CheckQuantShift, LaunchQuantShiftStep, &kernels::LaunchQuantShift != nullptr);
SWITCHYARD_STEP_OP("Rescale", CheckRescale, LaunchRescaleStep, &kernels::LaunchRescale != nullptr);

}  // namespace switchyard::plan
