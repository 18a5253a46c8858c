#include "activation_pass.h"

#include <algorithm>
#include <cstring>

#include "parallel.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

// ~5 µs of the pass per thread: below that, waking the second thread costs more than it saves.
constexpr int64_t kGrainElements = 32 * 1024;

bool Computes(Activation activation) { return activation == Activation::kSigmoid || activation == Activation::kSwish; }

// σ(0) = 0.5: after a Sigmoid pass the padded channels of a blocked layout's last block are zero again.
void ZeroPaddedChannels(float* data, const Dims& dims, int64_t block) {
  const int64_t channels = dims[1], tail = channels % block;
  if (tail == 0) return;
  const int64_t blocks = (channels + block - 1) / block;
  int64_t pixels = 1;
  for (size_t i = 2; i < dims.size(); i++) pixels *= dims[i];
  for (int64_t n = 0; n < dims[0]; n++) {
    float* last = data + ((n * blocks) + blocks - 1) * pixels * block;
    for (int64_t p = 0; p < pixels; p++) std::memset(last + p * block + tail, 0, sizeof(float) * (block - tail));
  }
}

}  // namespace

ActivationPass TakeActivationPass(Epilogue& epilogue, AlgorithmMode mode) {
  ActivationPass pass;
  if (!Computes(epilogue.activation)) return pass;
  mode = WithEnvironment(mode, "SWITCHYARD_CPU_ACTIVATION_PASS");
  if (mode == AlgorithmMode::kNever) return pass;
  if (mode == AlgorithmMode::kAuto && std::strcmp(VectorLoops().isa, "generic") == 0) return pass;
  pass.activation = epilogue.activation;
  pass.alpha = epilogue.activation == Activation::kSwish ? epilogue.alpha : 1.0f;
  epilogue.activation = Activation::kNone;
  return pass;
}

void ApplyActivationPass(const ActivationPass& pass, float* data, const Dims& dims, int64_t block) {
  if (!pass.active()) return;
  const int64_t elements = DescElements(LayoutDesc(dims, block));  // padded channels included
  const auto logistic = VectorLoops().logistic;
  const bool timesX = pass.activation == Activation::kSwish;
  ParallelRanges(elements, kGrainElements, [&](int64_t begin, int64_t end) {
    logistic(data + begin, data + begin, end - begin, pass.alpha, timesX);
  });
  if (block > 0 && !timesX) ZeroPaddedChannels(data, dims, block);
}

const char* ActivationPassSuffix(const ActivationPass& pass) {
  if (pass.activation == Activation::kSigmoid) return " + sigmoid pass";
  if (pass.activation == Activation::kSwish) return " + swish pass";
  return "";
}

}  // namespace switchyard
