// Output-channel split for multi-threaded convolutions on small images: each thread of the team runs
// its own single-threaded convolution over a contiguous slice of the output channels.
//
// Why: oneDNN 2.6 splits one convolution across its OpenMP team itself, and on 7x7 images
// (MobileNetV2's last blocks, ResNet-50's layer4) 2 threads ran those convs only 1.0..1.3x faster
// than 1, where onnxruntime's split reached 2x. Sliced by output channel, each thread reads its own
// share of the weights and writes its own part of the output, with oneDNN's single-threaded kernel.
// GemmKernel splits a batch-1 classifier's columns the same way (one row is one pixel of a 1x1 conv,
// which oneDNN cannot split at all).
#pragma once

#include <omp.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "algorithm_mode.h"

namespace switchyard {

// Whether a conv whose output has `channels` channels in blocks of `block` over `pixels` pixels per
// image is split across `threads` threads (`mode` kAuto: small images only; the environment variable
// SWITCHYARD_CPU_CHANNEL_SPLIT=never|always overrides it). The slices must be whole blocks of one
// image (a batch of 1), so each is a contiguous range of a channel-blocked tensor.
bool SplitsOutputChannels(AlgorithmMode mode, int threads, int64_t batch, int64_t channels, int64_t block, int64_t pixels);

// Runs run(part, index) for every part, one thread per part, and rethrows the first part's failure.
template <typename Part, typename Run>
void RunParts(const std::vector<std::unique_ptr<Part>>& parts, Run run) {
  const int n = static_cast<int>(parts.size());
  std::vector<std::exception_ptr> errors(n);
#pragma omp parallel num_threads(n)
  {
    // A smaller team than asked for (a thread limit) runs the leftover parts in turn.
    for (int i = omp_get_thread_num(); i < n; i += omp_get_num_threads()) {
      try {
        run(*parts[i], i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  }
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace switchyard
