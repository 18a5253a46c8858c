// A oneDNN pooling (max, or average with or without padding in the divisor) for one fixed input
// shape: V8-free, built once, executed many times; Execute is const and safe to call concurrently.
// The caller resolves auto_pad and ceil_mode into explicit pads (ceil_mode as extra end padding).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>

#include "memory_desc.h"
#include "scratchpad.h"

namespace switchyard {

class BlockedMaxPool2d;

enum class PoolKind { kMax, kAvgIncludePad, kAvgExcludePad };

struct PoolParams {
  Dims input;  // [N, C, ...spatial], spatial rank 1–3
  PoolKind kind = PoolKind::kMax;
  Dims kernel;
  Dims strides;    // empty → all 1
  Dims padsBegin;  // empty → all 0
  Dims padsEnd;    // empty → all 0
  int threads = 0;
  // Layout of the caller's src and dst (0 plain; 8/16 channel-blocked, run as is with no reorder).
  int64_t block = 0;
};

class PoolKernel {
 public:
  explicit PoolKernel(const PoolParams& params);
  void Execute(const float* src, float* dst) const;

  const PoolParams& params() const { return params_; }
  const Dims& outputDims() const { return outputDims_; }
  int64_t srcElements() const { return DescElements(userSrc_); }
  int64_t dstElements() const { return DescElements(userDst_); }
  std::string implementation() const;

 private:
  PoolParams params_;
  Dims outputDims_;
  dnnl::memory::desc userSrc_, userDst_;
  dnnl::pooling_forward::primitive_desc pd_;
  dnnl::pooling_forward primitive_;
  // Set when the primitive runs on a blocked layout (oneDNN's pooling on plain NCHW is a slow
  // scalar loop): src is reordered in and dst out on every call, still far cheaper.
  std::optional<Reorder> srcReorder_, dstReorder_;
  // Set for 2-D max pooling on blocked layouts (blocked_max_pool.h): it runs instead of primitive_.
  std::shared_ptr<const BlockedMaxPool2d> blockedMax_;
};

// 'max' | 'avgIncludePad' | 'avgExcludePad'.
PoolKind ParsePoolKind(const std::string& name);

// Validates params (filling defaults) and returns the output dims (floor division).
Dims PoolOutputDims(PoolParams& params);

}  // namespace switchyard
