#include "algorithm_mode.h"

#include <cstdlib>

#include <switchyard/errors.h>

namespace switchyard {

AlgorithmMode ParseAlgorithmMode(const std::string& name, const std::string& option, const std::string& context) {
  if (name == "auto") return AlgorithmMode::kAuto;
  if (name == "always") return AlgorithmMode::kAlways;
  if (name == "never") return AlgorithmMode::kNever;
  throw CodedError("INVALID_ARGUMENT", context + ": " + option + " must be 'auto', 'always' or 'never', got '" + name + "'");
}

AlgorithmMode WithEnvironment(AlgorithmMode mode, const char* variable) {
  if (mode != AlgorithmMode::kAuto) return mode;
  const char* value = std::getenv(variable);
  return value && *value ? ParseAlgorithmMode(value, variable, "environment") : mode;
}

}  // namespace switchyard
