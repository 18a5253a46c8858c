// Step ops that need no kernel family: Copy (Reshape, Flatten, Squeeze, Unsqueeze, Identity are
// byte copies between differently-shaped views of the same data).
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

std::string CheckCopy(StepArgs* args) {
  std::string problem = ExpectArity(*args, 1, 1, 1);
  if (!problem.empty()) return problem;
  if (args->in(0).bytes != args->out(0).bytes) {
    return "copies " + std::to_string(args->in(0).bytes) + " bytes into " + std::to_string(args->out(0).bytes);
  }
  return "";
}

hipError_t LaunchCopy(const StepArgs& args) {
  if (args.out(0).bytes == 0 || args.out(0).data == args.in(0).data) return hipSuccess;
  return hipMemcpyAsync(args.out(0).data, args.in(0).data, args.out(0).bytes, hipMemcpyDeviceToDevice, args.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("Copy", CheckCopy, LaunchCopy);

}  // namespace switchyard::plan
