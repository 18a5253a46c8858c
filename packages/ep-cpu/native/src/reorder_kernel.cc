#include "reorder_kernel.h"

#include "conv_kernel.h"
#include "engine.h"
#include "errors.h"

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

int64_t PreferredChannelBlock() {
  static const int64_t block = [] {
    ConvParams p;
    p.input = {1, 64, 14, 14};
    p.weights = {64, 64, 3, 3};
    p.padsBegin = {1, 1};
    p.padsEnd = {1, 1};
    try {
      const int64_t b = ConvKernel(p, nullptr, nullptr).primitiveSrcBlock();
      return b > 0 ? b : int64_t{0};
    } catch (const std::exception&) {
      return int64_t{0};
    }
  }();
  return block;
}

}  // namespace switchyard
