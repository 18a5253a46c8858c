#include "channel_split.h"

namespace switchyard {

namespace {

// Measured in MobileNetV2 b1 at 2 threads on a 2-core AVX2 EPYC (in-process A/B, 40 interleaved rounds):
// splitting its 7x7 convs took the model from 1.0 to 0.955x; splitting 14x14 too, or 28x28 too, gave
// back 2% (oneDNN's own split serves those well). ResNet-50 b1 was unchanged within noise.
constexpr int64_t kMaxPixels = 64;

}  // namespace

bool SplitsOutputChannels(AlgorithmMode mode, int threads, int64_t batch, int64_t channels, int64_t block, int64_t pixels) {
  mode = WithEnvironment(mode, "SWITCHYARD_CPU_CHANNEL_SPLIT");
  if (mode == AlgorithmMode::kNever || threads < 2 || batch != 1 || block <= 0 || channels % (block * threads) != 0) return false;
  return mode == AlgorithmMode::kAlways || pixels <= kMaxPixels;
}

}  // namespace switchyard
