// Step ops for kernels/elementwise.hip: broadcasting binary ops and comparisons, unary activations
// and math, Where, Cast, Not. Attribute blobs (built by the EP's attribute encoders):
//   binary ops, Where, Cast, Not: none.   unary ops: [alpha, beta] where the op takes them.
// Binary arithmetic and comparisons take float32/float16/int32/int64; Equal also bool; And/Or/Xor
// bool only (the kernel's own rule, kBinaryServes in elementwise.hip).
#include <cmath>

#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {

bool KernelDType(int onnx_dtype, kernels::DType* out) {
  switch (onnx_dtype) {
    case kFloat32: *out = kernels::DType::kFloat32; return true;
    case kFloat16: *out = kernels::DType::kFloat16; return true;
    case kInt32: *out = kernels::DType::kInt32; return true;
    case kInt64: *out = kernels::DType::kInt64; return true;
    case kBool: *out = kernels::DType::kBool; return true;
    case kInt8: *out = kernels::DType::kInt8; return true;
    case kUint8: *out = kernels::DType::kUint8; return true;
    default: return false;
  }
}

bool KernelShape(const TensorRef& t, kernels::TensorShape* out) {
  if (t.dims.size() > static_cast<size_t>(kernels::kMaxRank)) return false;
  out->rank = static_cast<int>(t.dims.size());
  for (size_t i = 0; i < t.dims.size(); ++i) out->dims[i] = t.dims[i];
  return true;
}

namespace {

std::string FloatOperands(const StepArgs& args, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int d = args.in(i).dtype;
    if (d != kFloat32 && d != kFloat16) return "operand " + std::to_string(i) + " must be float32 or float16";
  }
  return "";
}

std::string RankFits(const StepArgs& args) {
  kernels::TensorShape s;
  for (const TensorRef* t : args.inputs) if (t != nullptr && !KernelShape(*t, &s)) return "rank above " + std::to_string(kernels::kMaxRank);
  for (const TensorRef* t : args.outputs) if (!KernelShape(*t, &s)) return "rank above " + std::to_string(kernels::kMaxRank);
  return "";
}

template <kernels::BinaryOp Op>
std::string BinaryOperandTypes(const StepArgs& args) {
  constexpr bool kLogical = Op >= kernels::BinaryOp::kAnd;
  for (size_t i = 0; i < 2; ++i) {
    const int d = args.in(i).dtype;
    const bool numeric = d == kFloat32 || d == kFloat16 || d == kInt32 || d == kInt64;
    const bool ok = kLogical ? d == kBool : numeric || (Op == kernels::BinaryOp::kEqual && d == kBool);
    if (!ok) return "operand " + std::to_string(i) + (kLogical ? " must be bool" : " must be float32, float16, int32 or int64");
  }
  const int want = Op >= kernels::BinaryOp::kEqual ? kBool : args.in(0).dtype;
  if (args.out(0).dtype != want) return "output element type differs from the op's";
  return "";
}

template <kernels::BinaryOp Op>
std::string CheckBinary(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 2, 1);
  if (p.empty()) p = BinaryOperandTypes<Op>(*args);
  if (p.empty()) p = RankFits(*args);
  if (!p.empty()) return p;
  if (args->in(0).dtype != args->in(1).dtype) return "operands differ in element type";
  kernels::TensorShape a, b, o;
  KernelShape(args->in(0), &a);
  KernelShape(args->in(1), &b);
  if (!kernels::BroadcastShapes(a, b, &o)) return "operand shapes do not broadcast";
  if (o.ElementCount() != args->out(0).count()) return "output size differs from the broadcast shape";
  return "";
}

template <kernels::BinaryOp Op>
hipError_t LaunchBinaryStep(const StepArgs& args) {
  kernels::TensorShape a, b, o;
  kernels::DType dtype = kernels::DType::kFloat32;
  KernelShape(args.in(0), &a);
  KernelShape(args.in(1), &b);
  KernelShape(args.out(0), &o);
  KernelDType(args.in(0).dtype, &dtype);
  return kernels::LaunchBinary(Op, dtype, args.in(0).data, a, args.in(1).data, b, args.out(0).data, o, args.stream);
}

template <kernels::UnaryOp Op>
std::string CheckUnary(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = FloatOperands(*args, 1);
  if (!p.empty()) return p;
  if (args->in(0).dtype != args->out(0).dtype || args->in(0).count() != args->out(0).count()) return "output differs from input";
  return "";
}

template <kernels::UnaryOp Op>
hipError_t LaunchUnaryStep(const StepArgs& args) {
  kernels::DType dtype = kernels::DType::kFloat32;
  KernelDType(args.in(0).dtype, &dtype);
  kernels::UnaryParams params;
  params.alpha = static_cast<float>(args.attr(0, 0));
  params.beta = static_cast<float>(args.attr(1, 0));
  return kernels::LaunchUnary(Op, dtype, args.in(0).data, args.out(0).data, args.in(0).count(), params, args.stream);
}

std::string CheckWhere(StepArgs* args) {
  std::string p = ExpectArity(*args, 3, 3, 1);
  if (p.empty()) p = RankFits(*args);
  if (!p.empty()) return p;
  if (args->in(0).dtype != kBool) return "condition must be bool";
  kernels::DType d;
  if (!KernelDType(args->in(1).dtype, &d) || args->in(1).dtype != args->in(2).dtype) return "x and y must share a supported element type";
  return "";
}

hipError_t LaunchWhereStep(const StepArgs& args) {
  kernels::TensorShape c, x, y, o;
  KernelShape(args.in(0), &c);
  KernelShape(args.in(1), &x);
  KernelShape(args.in(2), &y);
  KernelShape(args.out(0), &o);
  kernels::DType dtype = kernels::DType::kFloat32;
  KernelDType(args.in(1).dtype, &dtype);
  return kernels::LaunchWhere(dtype, static_cast<const uint8_t*>(args.in(0).data), c, args.in(1).data, x, args.in(2).data, y,
                              args.out(0).data, o, args.stream);
}

std::string CheckCast(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (!p.empty()) return p;
  kernels::DType a, b;
  if (!KernelDType(args->in(0).dtype, &a) || !KernelDType(args->out(0).dtype, &b)) return "unsupported element type";
  if (args->in(0).count() != args->out(0).count()) return "output size differs from input";
  return "";
}

hipError_t LaunchCastStep(const StepArgs& args) {
  kernels::DType a, b;
  // The check accepted both types; a failure here means a corrupted step.
  if (!KernelDType(args.in(0).dtype, &a) || !KernelDType(args.out(0).dtype, &b)) return hipErrorInvalidValue;
  if (a == b) return hipMemcpyAsync(args.out(0).data, args.in(0).data, args.out(0).bytes, hipMemcpyDeviceToDevice, args.stream);
  return kernels::LaunchCast(a, b, args.in(0).data, args.out(0).data, args.in(0).count(), args.stream);
}

std::string CheckNot(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (!p.empty()) return p;
  if (args->in(0).dtype != kBool || args->out(0).dtype != kBool) return "Not takes and makes bool";
  if (args->in(0).count() != args->out(0).count()) return "output size differs from input";
  return "";
}

hipError_t LaunchNotStep(const StepArgs& args) {
  return kernels::LaunchNot(static_cast<const uint8_t*>(args.in(0).data), static_cast<uint8_t*>(args.out(0).data), args.in(0).count(),
                            args.stream);
}

const bool kBinary = &kernels::LaunchBinary != nullptr;
const bool kUnary = &kernels::LaunchUnary != nullptr;

}  // namespace

#define SWITCHYARD_BINARY(name, op) SWITCHYARD_STEP_OP(name, CheckBinary<kernels::BinaryOp::op>, LaunchBinaryStep<kernels::BinaryOp::op>, kBinary)
SWITCHYARD_BINARY("Add", kAdd);
SWITCHYARD_BINARY("Sub", kSub);
SWITCHYARD_BINARY("Mul", kMul);
SWITCHYARD_BINARY("Div", kDiv);
SWITCHYARD_BINARY("Pow", kPow);
SWITCHYARD_BINARY("Max", kMax);
SWITCHYARD_BINARY("Min", kMin);
SWITCHYARD_BINARY("Equal", kEqual);
SWITCHYARD_BINARY("Less", kLess);
SWITCHYARD_BINARY("Greater", kGreater);
SWITCHYARD_BINARY("LessOrEqual", kLessOrEqual);
SWITCHYARD_BINARY("GreaterOrEqual", kGreaterOrEqual);
SWITCHYARD_BINARY("And", kAnd);
SWITCHYARD_BINARY("Or", kOr);
SWITCHYARD_BINARY("Xor", kXor);
SWITCHYARD_STEP_OP("Not", CheckNot, LaunchNotStep, &kernels::LaunchNot != nullptr);

#define SWITCHYARD_UNARY(name, op) SWITCHYARD_STEP_OP(name, CheckUnary<kernels::UnaryOp::op>, LaunchUnaryStep<kernels::UnaryOp::op>, kUnary)
SWITCHYARD_UNARY("Relu", kRelu);
SWITCHYARD_UNARY("LeakyRelu", kLeakyRelu);
SWITCHYARD_UNARY("Sigmoid", kSigmoid);
SWITCHYARD_UNARY("Tanh", kTanh);
SWITCHYARD_UNARY("GeluErf", kGeluErf);
SWITCHYARD_UNARY("GeluTanh", kGeluTanh);
SWITCHYARD_UNARY("HardSigmoid", kHardSigmoid);
SWITCHYARD_UNARY("HardSwish", kHardSwish);
SWITCHYARD_UNARY("Clip", kClip);
SWITCHYARD_UNARY("Erf", kErf);
SWITCHYARD_UNARY("Exp", kExp);
SWITCHYARD_UNARY("Log", kLog);
SWITCHYARD_UNARY("Sqrt", kSqrt);
SWITCHYARD_UNARY("Neg", kNeg);
SWITCHYARD_UNARY("Abs", kAbs);
SWITCHYARD_UNARY("Reciprocal", kReciprocal);
SWITCHYARD_UNARY("Swish", kSwish);
SWITCHYARD_UNARY("Elu", kElu);
SWITCHYARD_UNARY("Softplus", kSoftplus);
SWITCHYARD_UNARY("Mish", kMish);
SWITCHYARD_UNARY("Selu", kSelu);
SWITCHYARD_UNARY("Softsign", kSoftsign);

SWITCHYARD_STEP_OP("Where", CheckWhere, LaunchWhereStep, &kernels::LaunchWhere != nullptr);
SWITCHYARD_STEP_OP("Cast", CheckCast, LaunchCastStep, &kernels::LaunchCast != nullptr);

}  // namespace switchyard::plan
