// Step ops for kernels/movement.hip. Attribute blobs (built by the EP's attribute encoders):
//   Gather [axis]   Concat [axis]   Transpose [perm...]   Expand []
//   Slice [starts(rank)..., steps(rank)...] (starts clamped, steps != 0; output dims give the sizes)
//   Pad [mode (0 constant, 1 reflect, 2 edge), value, pads_begin(rank)...] (output dims give the rest)
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

std::string Shapes(const StepArgs& args) {
  kernels::TensorShape s;
  kernels::DType d;
  for (const TensorRef* t : args.inputs) if (t != nullptr && !KernelShape(*t, &s)) return "rank above " + std::to_string(kernels::kMaxRank);
  for (const TensorRef* t : args.outputs) {
    if (!KernelShape(*t, &s)) return "rank above " + std::to_string(kernels::kMaxRank);
    if (!KernelDType(t->dtype, &d)) return "unsupported element type";
  }
  return "";
}

kernels::DType DTypeOf(const TensorRef& t) {
  kernels::DType d = kernels::DType::kFloat32;
  KernelDType(t.dtype, &d);
  return d;
}

kernels::TensorShape ShapeOf(const TensorRef& t) {
  kernels::TensorShape s;
  KernelShape(t, &s);
  return s;
}

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to && i < dims.size(); ++i) n *= dims[i];
  return n;
}

std::string CheckGather(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 2, 1);
  if (p.empty()) p = Shapes(*args);
  if (!p.empty()) return p;
  const double axis = args->attr(0, -1);
  if (axis < 0 || axis >= static_cast<double>(args->in(0).dims.size())) return "axis out of range";
  if (args->in(1).dtype != kInt32 && args->in(1).dtype != kInt64) return "indices must be int32 or int64";
  return "";
}

hipError_t LaunchGatherStep(const StepArgs& args) {
  const auto& d = args.in(0).dims;
  const size_t axis = static_cast<size_t>(args.attr(0));
  return kernels::LaunchGather(DTypeOf(args.in(0)), args.in(0).data, Product(d, 0, axis), d[axis], Product(d, axis + 1, d.size()),
                               args.in(1).data, DTypeOf(args.in(1)), args.in(1).count(), args.out(0).data, args.stream);
}

std::string CheckConcat(StepArgs* args) {
  if (args->inputs.empty() || args->outputs.size() != 1) return "takes inputs and one output";
  std::string p = Shapes(*args);
  if (!p.empty()) return p;
  const double axis = args->attr(0, -1);
  if (axis < 0 || axis >= static_cast<double>(args->out(0).dims.size())) return "axis out of range";
  for (const TensorRef* t : args->inputs) if (t == nullptr || t->dtype != args->out(0).dtype) return "inputs must all be present and share the output's type";
  return "";
}

hipError_t LaunchConcatStep(const StepArgs& args) {
  const auto& od = args.out(0).dims;
  const size_t axis = static_cast<size_t>(args.attr(0));
  std::vector<const void*> ptrs;
  std::vector<int64_t> sizes;
  for (const TensorRef* t : args.inputs) {
    ptrs.push_back(t->data);
    sizes.push_back(t->dims[axis]);
  }
  return kernels::LaunchConcat(DTypeOf(args.out(0)), ptrs.data(), sizes.data(), static_cast<int>(ptrs.size()), Product(od, 0, axis),
                               Product(od, axis + 1, od.size()), args.out(0).data, args.stream);
}

std::string CheckSlice(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = Shapes(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != 2 * args->in(0).dims.size()) return "needs starts and steps for every axis";
  return "";
}

hipError_t LaunchSliceStep(const StepArgs& args) {
  const size_t rank = args.in(0).dims.size();
  int64_t starts[kernels::kMaxRank], steps[kernels::kMaxRank];
  for (size_t i = 0; i < rank; ++i) {
    starts[i] = static_cast<int64_t>(args.attrs[i]);
    steps[i] = static_cast<int64_t>(args.attrs[rank + i]);
  }
  return kernels::LaunchSlice(DTypeOf(args.in(0)), args.in(0).data, ShapeOf(args.in(0)), starts, steps, args.out(0).data,
                              ShapeOf(args.out(0)), args.stream);
}

std::string CheckTranspose(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = Shapes(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != args->in(0).dims.size()) return "perm must name every axis";
  return "";
}

hipError_t LaunchTransposeStep(const StepArgs& args) {
  int perm[kernels::kMaxRank];
  for (size_t i = 0; i < args.attrs.size(); ++i) perm[i] = static_cast<int>(args.attrs[i]);
  return kernels::LaunchTranspose(DTypeOf(args.in(0)), args.in(0).data, ShapeOf(args.in(0)), perm, args.out(0).data, args.stream);
}

std::string CheckExpand(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 2, 1);  // the shape input (a constant) may be passed along
  if (p.empty()) p = Shapes(*args);
  return p;
}

hipError_t LaunchExpandStep(const StepArgs& args) {
  return kernels::LaunchExpand(DTypeOf(args.in(0)), args.in(0).data, ShapeOf(args.in(0)), args.out(0).data, ShapeOf(args.out(0)),
                               args.stream);
}

std::string CheckPad(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = Shapes(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != 2 + args->in(0).dims.size()) return "needs mode, value and a begin pad per axis";
  return "";
}

hipError_t LaunchPadStep(const StepArgs& args) {
  const size_t rank = args.in(0).dims.size();
  int64_t begin[kernels::kMaxRank];
  for (size_t i = 0; i < rank; ++i) begin[i] = static_cast<int64_t>(args.attrs[2 + i]);
  return kernels::LaunchPad(DTypeOf(args.in(0)), args.in(0).data, ShapeOf(args.in(0)), begin, args.out(0).data, ShapeOf(args.out(0)),
                            static_cast<kernels::PadMode>(static_cast<int>(args.attrs[0])), args.attrs[1], args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("Gather", CheckGather, LaunchGatherStep, &kernels::LaunchGather != nullptr);
SWITCHYARD_STEP_OP("Concat", CheckConcat, LaunchConcatStep, &kernels::LaunchConcat != nullptr);
SWITCHYARD_STEP_OP("Slice", CheckSlice, LaunchSliceStep, &kernels::LaunchSlice != nullptr);
SWITCHYARD_STEP_OP("Transpose", CheckTranspose, LaunchTransposeStep, &kernels::LaunchTranspose != nullptr);
SWITCHYARD_STEP_OP("Expand", CheckExpand, LaunchExpandStep, &kernels::LaunchExpand != nullptr);
SWITCHYARD_STEP_OP("Pad", CheckPad, LaunchPadStep, &kernels::LaunchPad != nullptr);

}  // namespace switchyard::plan
