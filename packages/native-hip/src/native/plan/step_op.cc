#include "plan/step_op.h"

#include <algorithm>
#include <map>

namespace switchyard::plan {
namespace {

// Function-local so registrars in other files can run before this file's statics are initialized.
std::map<std::string, StepOp>& Table() {
  static std::map<std::string, StepOp> table;
  return table;
}

}  // namespace

size_t DTypeSize(int dtype) {
  switch (dtype) {
    case kFloat32:
    case kInt32:
      return 4;
    case kInt64:
      return 8;
    case kFloat16:
      return 2;
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    default:
      return 0;
  }
}

StepOpRegistrar::StepOpRegistrar(const char* name, StepCheck check, StepLaunch launch, bool available, bool capturable) {
  Table()[name] = StepOp{name, check, launch, capturable, available};
}

const StepOp* FindStepOp(const std::string& name) {
  auto it = Table().find(name);
  return it == Table().end() || !it->second.available ? nullptr : &it->second;
}

std::vector<std::string> StepOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, op] : Table()) if (op.available) names.push_back(name);
  return names;
}

std::vector<std::string> MissingStepOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, op] : Table()) if (!op.available) names.push_back(name);
  return names;
}

std::string ExpectArity(const StepArgs& args, size_t min_inputs, size_t max_inputs, size_t outputs) {
  if (args.inputs.size() < min_inputs || args.inputs.size() > max_inputs) {
    return "takes " + std::to_string(min_inputs) + (max_inputs != min_inputs ? "-" + std::to_string(max_inputs) : "") +
           " inputs, got " + std::to_string(args.inputs.size());
  }
  for (size_t i = 0; i < min_inputs; ++i) {
    if (args.inputs[i] == nullptr) return "input " + std::to_string(i) + " is required";
  }
  if (args.outputs.size() != outputs) {
    return "makes " + std::to_string(outputs) + " outputs, got " + std::to_string(args.outputs.size());
  }
  return "";
}

std::string ExpectDType(const TensorRef& t, int dtype, const char* what) {
  if (t.dtype == dtype) return "";
  return std::string(what) + " has element type " + std::to_string(t.dtype) + ", expected " + std::to_string(dtype);
}

}  // namespace switchyard::plan
