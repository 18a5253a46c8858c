// 2-D max pooling on a channel-blocked tensor (nChw8c / nChw16c), written out because oneDNN 2.6's
// jit pooling for these layouts is slow on AVX2: 0.84 ms for SqueezeNet's first MaxPool (64 channels,
// 111x111 → 55x55, 3x3 stride 2) where a plain loop of 8-lane maxima takes about a tenth of that.
// Each output pixel of a channel block is the lane-wise maximum of the window's in-bounds pixels
// (padding never wins, as ONNX MaxPool's); the block's padding lanes stay zero (max of zeros).
#pragma once

#include <memory>
#include <string>

#include "pool_kernel.h"

namespace switchyard {

class BlockedMaxPool2d {
 public:
  // A kernel for `params` (validated, defaults filled) with output `outputDims`, or null when it
  // does not serve them (not max, not 2-D, not blocked by 8 or 16): oneDNN's primitive runs then.
  static std::unique_ptr<const BlockedMaxPool2d> TryCreate(const PoolParams& params, const Dims& outputDims);

  // src / dst in the blocked layout; runs on params.threads OpenMP threads.
  void Execute(const float* src, float* dst) const;
  std::string implementation() const { return "switchyard:blocked_max"; }

 private:
  BlockedMaxPool2d(const PoolParams& params, const Dims& outputDims) : params_(params), outputDims_(outputDims) {}
  void Run(const float* src, float* dst) const;

  PoolParams params_;
  Dims outputDims_;
};

}  // namespace switchyard
