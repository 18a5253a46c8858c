// Step op for kernels/lstm.hip (ONNX LSTM). Attribute blob:
//   [seq, batch, input, hidden, dirs, reverse, hasY, hasYh, hasYc]
// Inputs X, W, R, B, initial_h, initial_c (the last three may be omitted); outputs the present ones
// of Y, Y_h, Y_c, in that order (has* say which are there). A workspace of LstmWorkspaceBytes in the
// description picks the stepped form; without one the single-block form must fit its shared memory.
#include <cmath>

#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

constexpr size_t kLstmAttrs = 9;

struct LstmState {
  kernels::LstmShape shape;
  int slot[3] = {-1, -1, -1};  // output index of Y, Y_h, Y_c, or -1
  bool stepped = false;
};

std::string CheckLstm(StepArgs* args) {
  if (args->inputs.size() < 3 || args->inputs.size() > 6) return "takes 3-6 inputs (X, W, R, B, initial_h, initial_c)";
  for (size_t i = 0; i < 3; ++i) {
    if (args->inputs[i] == nullptr) return "X, W and R are required";
  }
  if (args->attrs.size() != kLstmAttrs) return "needs 9 attributes (seq, batch, input, hidden, dirs, reverse, which outputs)";
  for (double a : args->attrs) {
    if (!(a >= 0 && a <= 9.0e15 && a == std::floor(a))) return "attributes must be whole non-negative numbers";
  }
  const auto at = [&](size_t i) { return static_cast<int64_t>(args->attrs[i]); };
  auto st = std::make_shared<LstmState>();
  kernels::LstmShape& s = st->shape;
  s.seq = at(0), s.batch = at(1), s.input = at(2), s.hidden = at(3), s.dirs = at(4), s.reverse = at(5) != 0;
  if (s.dirs != 1 && s.dirs != 2) return "dirs must be 1 or 2";
  if (s.input < 1 || s.hidden < 1) return "input and hidden sizes must be at least 1";
  const size_t stepped_bytes = kernels::LstmWorkspaceBytes(s);
  st->stepped = args->workspace != nullptr && args->workspace_bytes >= stepped_bytes;
  // Without the workspace the single-block form runs it, if it can; else ask for the workspace (the
  // plan reports that the description gave too little).
  if (!st->stepped && (s.batch > 65535 || kernels::LstmSharedBytes(s) > 48 * 1024)) args->workspace_bytes = stepped_bytes;
  const int dtype = args->in(0).dtype;
  if (dtype != kFloat32 && dtype != kFloat16) return "X must be float32 or float16";
  const int64_t rows = 4 * s.hidden;
  const int64_t state = s.dirs * s.batch * s.hidden;
  const int64_t expected[6] = {s.seq * s.batch * s.input, s.dirs * rows * s.input, s.dirs * rows * s.hidden, s.dirs * 2 * rows, state, state};
  const char* names[6] = {"X", "W", "R", "B", "initial_h", "initial_c"};
  // W, R and B share one type: X's, or float32 in a float16 plan (the weights kept exact).
  const int weight_dtype = args->in(1).dtype;
  if (weight_dtype != dtype && weight_dtype != kFloat32) return "W must have X's type or be float32";
  for (size_t i = 0; i < args->inputs.size(); ++i) {
    if (args->inputs[i] == nullptr) continue;
    const bool weight = i >= 1 && i <= 3;
    if (weight && args->in(i).dtype != weight_dtype) return std::string(names[i]) + " must have W's type";
    if (!weight && args->in(i).dtype != dtype) return std::string(names[i]) + " must have X's type";
    if (args->in(i).count() != expected[i]) return std::string(names[i]) + " has " + std::to_string(args->in(i).count()) + " elements, expected " + std::to_string(expected[i]);
  }
  const int64_t out_counts[3] = {s.seq * s.dirs * s.batch * s.hidden, state, state};
  size_t next = 0;
  for (int k = 0; k < 3; ++k) {
    if (at(6 + k) == 0) continue;
    if (next >= args->outputs.size()) return "fewer outputs than the attributes name";
    const TensorRef& o = args->out(next);
    if (o.dtype != dtype) return "outputs must have X's type";
    if (o.count() != out_counts[k]) return "output " + std::to_string(next) + " has the wrong size";
    st->slot[k] = static_cast<int>(next++);
  }
  if (next != args->outputs.size() || next == 0) return "outputs must be the present ones of Y, Y_h, Y_c (at least one)";
  args->state = st;
  return "";
}

hipError_t LaunchLstmStep(const StepArgs& args) {
  const auto* st = static_cast<const LstmState*>(args.state.get());
  const auto opt_in = [&](size_t i) -> const void* { return args.inputs.size() > i && args.inputs[i] != nullptr ? args.inputs[i]->data : nullptr; };
  const auto out = [&](int k) -> void* { return st->slot[k] >= 0 ? args.out(static_cast<size_t>(st->slot[k])).data : nullptr; };
  const auto type_of = [](int dtype) { return dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32; };
  return kernels::LaunchLstm(type_of(args.in(0).dtype), type_of(args.in(1).dtype), args.in(0).data, args.in(1).data, args.in(2).data,
                             opt_in(3), opt_in(4), opt_in(5), out(0), out(1), out(2), st->shape, st->stepped ? args.workspace : nullptr,
                             st->stepped ? args.workspace_bytes : 0, args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("Lstm", CheckLstm, LaunchLstmStep, &kernels::LaunchLstm != nullptr);

}  // namespace switchyard::plan
