// How a conv picks between oneDNN and one of the addon's own algorithms (Winograd, im2col GEMM).
#pragma once

#include <string>

namespace switchyard {

// auto: the addon's algorithm where it measured faster than oneDNN; always: wherever it applies (tests
// compare the two paths); never: oneDNN only.
enum class AlgorithmMode { kAuto, kAlways, kNever };

// 'auto' | 'always' | 'never' for option `option`; throws CodedError('INVALID_ARGUMENT') otherwise.
AlgorithmMode ParseAlgorithmMode(const std::string& name, const std::string& option, const std::string& context);

// `mode`, except that kAuto yields to the environment variable `variable` when it is set (an escape
// hatch and A/B switch, read when a conv is built).
AlgorithmMode WithEnvironment(AlgorithmMode mode, const char* variable);

}  // namespace switchyard
