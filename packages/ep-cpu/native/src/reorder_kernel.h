// Layout conversion between plain NC[D]HW and channel-blocked float32 tensors (the boundary of a
// region of the graph that the CPU EP keeps blocked between consecutive convolutions and pools).
// V8-free, built once per shape, Execute is const and safe to call concurrently.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>

#include "memory_desc.h"
#include "scratchpad.h"

namespace switchyard {

struct ReorderParams {
  Dims dims;            // logical [N, C, ...spatial], rank 3–5
  int64_t fromBlock = 0;  // 0 plain, 8/16 channel-blocked
  int64_t toBlock = 0;
  int threads = 0;
};

class ReorderKernel {
 public:
  explicit ReorderKernel(const ReorderParams& params);
  void Execute(const float* src, float* dst) const;

  const ReorderParams& params() const { return params_; }
  int64_t srcElements() const { return DescElements(from_); }
  int64_t dstElements() const { return DescElements(to_); }

 private:
  ReorderParams params_;
  dnnl::memory::desc from_, to_;
  std::optional<Reorder> reorder_;
};

// The channel block oneDNN's direct convolution prefers on this CPU (8 on AVX2, 16 on AVX-512),
// probed by letting a typical 3x3 convolution choose its src layout; 0 when it keeps a plain layout.
int64_t PreferredChannelBlock();

}  // namespace switchyard
