#include "reorder_kernel.h"

#include "conv_kernel.h"
#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

ReorderParams Validated(const ReorderParams& p) {
  if (p.dims.size() < 3 || p.dims.size() > 5) {
    throw CodedError("INVALID_ARGUMENT", "Reorder: dims must have rank 3 to 5, got " + DimsToString(p.dims));
  }
  ElementCount(p.dims, "Reorder: dims");
  return p;
}

}  // namespace

ReorderKernel::ReorderKernel(const ReorderParams& params)
    : params_(Validated(params)),
      from_(LayoutDesc(params_.dims, params_.fromBlock)),
      to_(LayoutDesc(params_.dims, params_.toBlock)) {
  ThreadScope threads(params_.threads);  // creation and execution agree on the team size
  reorder_.emplace(from_, to_);
}

void ReorderKernel::Execute(const float* src, float* dst) const {
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  reorder_->Execute(stream, dnnl::memory(from_, engine, const_cast<float*>(src)), dnnl::memory(to_, engine, dst));
  stream.wait();
}

// The channel block the CPU EP's blocked layout uses on this CPU. First what oneDNN picks for a typical
// mid-network conv when asked with `any` (nChw8c on AVX2). On AVX-512 oneDNN 2.6 picks channels-last
// (brgconv), which the blocked regions do not express; there the widest block that oneDNN still runs with
// a jit kernel is used (nChw16c: per conv within ~10% of brgconv on channels-last, measured on ResNet-50's
// and MobileNetV2's layers, and with no reorder between layers, where channels-last from NCHW graphs paid
// two per conv). 0 when neither exists (the pass then leaves convs in NCHW).
int64_t PreferredChannelBlock() {
  static const int64_t block = [] {
    ConvParams p;
    p.input = {1, 64, 14, 14};
    p.weights = {64, 64, 3, 3};
    p.padsBegin = {1, 1};
    p.padsEnd = {1, 1};
    try {
      const int64_t picked = ConvKernel(p, nullptr, nullptr).primitiveSrcBlock();
      if (picked > 0) return picked;
      for (int64_t b : {16, 8}) {
        p.srcBlock = p.dstBlock = b;
        ConvKernel blocked(p, nullptr, nullptr);
        if (blocked.primitiveSrcBlock() == b && blocked.primitiveDstBlock() == b) return b;
      }
    } catch (const std::exception&) {
      // No conv at all (an exotic build): plain layouts.
    }
    return int64_t{0};
  }();
  return block;
}

}  // namespace switchyard
