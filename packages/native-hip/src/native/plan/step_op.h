// The step-op table of execution plans: each op a plan step can name ("Add", "MatMul", "Copy"...)
// maps to a check (run once, when the plan is built) and a launch (run on every replay). Ops live
// in step_ops_*.cc files, one per kernel family, and register themselves with
// SWITCHYARD_STEP_OP, so adding an op never edits the plan itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vendor/gpu.h"

namespace switchyard::plan {

// ONNX TensorProto element types: the plan description names dtypes by these numbers.
enum DType : int {
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
};

size_t DTypeSize(int dtype);  // 0 for a type the plan cannot hold

// One buffer of the plan: a region of the plan's arena with a static shape.
struct TensorRef {
  void* data = nullptr;
  int dtype = kFloat32;
  std::vector<int64_t> dims;
  size_t bytes = 0;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

// What a step sees: its attribute blob (numbers, encoded per op by the TS side), its operands
// (nullptr for an omitted optional input), the stream and the device's warp size.
struct StepArgs {
  std::vector<double> attrs;
  std::vector<const TensorRef*> inputs;
  std::vector<const TensorRef*> outputs;
  hipStream_t stream = nullptr;
  int device = 0;
  int warp_size = 32;
  // Scratch the step's check asked for (bytes in `workspace_bytes`), carved from the arena.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  // What the check prepared once for every launch (library descriptors, a chosen algorithm...):
  // the step op's own type behind void; launches read it, never rebuild it.
  std::shared_ptr<void> state;
  // What the check chose and why, when there was a choice (a Conv's form and timings); "" otherwise.
  // Plans expose it per step (ExecutionPlan.stepNotes).
  std::string note;
  // The plan's tuning (the description's `tuning`: the EP's tunableOpEnable / tunableOpTuningEnable):
  // whether checks may time GEMM algorithms and Conv forms (kTune), take only cached answers
  // (kCachedOnly), or keep the libraries' defaults (kOff).
  enum class Tuning : int { kOff = 0, kCachedOnly = 1, kTune = 2 };
  Tuning tuning = Tuning::kTune;

  const TensorRef& in(size_t i) const { return *inputs.at(i); }
  const TensorRef& out(size_t i) const { return *outputs.at(i); }
  double attr(size_t i, double fallback = 0) const { return i < attrs.size() ? attrs[i] : fallback; }
};

// Build-time check: "" when the step can run, else why not (becomes the plan's error message).
// May set args->workspace_bytes.
using StepCheck = std::string (*)(StepArgs* args);
// Queues the step's work on args.stream; must not synchronize (it may be captured into a graph).
using StepLaunch = hipError_t (*)(const StepArgs& args);

struct StepOp {
  std::string name;
  StepCheck check;
  StepLaunch launch;
  // Capturable into a HIP/CUDA graph (false for ops that allocate or synchronize inside).
  bool capturable = true;
  // False when the kernel behind it is not linked into this build (see kernel_refs.h).
  bool available = true;
};

// nullptr when unknown or not available in this build.
const StepOp* FindStepOp(const std::string& name);
// Available ops, sorted.
std::vector<std::string> StepOpNames();
// Known but unavailable ops (their kernels are not linked in), sorted.
std::vector<std::string> MissingStepOpNames();

// Registers at load time; use through SWITCHYARD_STEP_OP.
struct StepOpRegistrar {
  StepOpRegistrar(const char* name, StepCheck check, StepLaunch launch, bool available = true, bool capturable = true);
};

#define SWITCHYARD_STEP_OP_CONCAT2(a, b) a##b
#define SWITCHYARD_STEP_OP_CONCAT(a, b) SWITCHYARD_STEP_OP_CONCAT2(a, b)
#define SWITCHYARD_STEP_OP(name, check, launch, ...) \
  static ::switchyard::plan::StepOpRegistrar SWITCHYARD_STEP_OP_CONCAT(step_op_registrar_, __LINE__)(name, check, launch, ##__VA_ARGS__)

// The BLAS seam's tuning for a step (blas::GemmTuning's numbers, without including blas.h here):
// kTune -> 0 (search), kCachedOnly -> 1, kOff -> 2.
inline int GemmTuningNumber(const StepArgs& args) {
  return args.tuning == StepArgs::Tuning::kTune ? 0 : args.tuning == StepArgs::Tuning::kCachedOnly ? 1 : 2;
}

// Helpers for checks.
std::string ExpectArity(const StepArgs& args, size_t min_inputs, size_t max_inputs, size_t outputs);
std::string ExpectDType(const TensorRef& t, int dtype, const char* what);

}  // namespace switchyard::plan
