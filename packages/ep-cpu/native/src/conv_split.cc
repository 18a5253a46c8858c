// ConvKernel's output-channel split (channel_split.h says why).
#include <omp.h>

#include "channel_split.h"
#include "conv_kernel.h"

namespace switchyard {

bool ConvKernel::TrySplitByOutputChannels(const float* constWeights, const float* constBias) {
  const ConvParams& p = params_;
  const int threads = p.threads > 0 ? p.threads : omp_get_max_threads();
  const int64_t filters = p.weights[0], block = p.dstBlock;
  int64_t pixels = 1;
  for (size_t i = 2; i < outputDims_.size(); ++i) pixels *= outputDims_[i];
  if (!SplitsOutputChannels(p.channelSplit, threads, p.input[0], filters, block, pixels)) return false;
  // The parts need packed weights and the caller's layouts as they are (no reorders around a slice).
  if (p.group != 1 || !constWeights || (p.hasBias && !constBias)) return false;
  if (p.srcBlock != block || (p.epilogue.sum && p.sumBlock != block)) return false;
  if (BlockOf(pd_.src_desc()) != block || BlockOf(pd_.dst_desc()) != block) return false;

  const int64_t slice = filters / threads;
  int64_t weightsPerFilter = 1;
  for (size_t i = 1; i < p.weights.size(); ++i) weightsPerFilter *= p.weights[i];
  ConvParams part = p;
  part.weights[0] = slice;
  part.threads = 1;
  part.winograd = AlgorithmMode::kNever;
  part.im2col = AlgorithmMode::kNever;
  part.channelSplit = AlgorithmMode::kNever;
  for (int t = 0; t < threads; ++t) {
    auto kernel = std::make_unique<ConvKernel>(part, constWeights + t * slice * weightsPerFilter, p.hasBias ? constBias + t * slice : nullptr);
    // A single-threaded primitive may prefer other layouts; then the split would add reorders.
    if (kernel->primitiveSrcBlock() != block || kernel->primitiveDstBlock() != block) {
      parts_.clear();
      return false;
    }
    parts_.push_back(std::move(kernel));
  }
  partElements_ = slice * pixels;  // one image: a slice of whole channel blocks is contiguous
  return true;
}

void ConvKernel::ExecuteParts(const float* src, const float* sum, float* dst) const {
  RunParts(parts_, [&](const ConvKernel& part, int i) {
    part.Execute(src, nullptr, nullptr, sum ? sum + i * partElements_ : nullptr, dst + i * partElements_);
  });
}

}  // namespace switchyard
