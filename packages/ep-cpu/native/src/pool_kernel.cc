#include "pool_kernel.h"

#include "blocked_max_pool.h"
#include "engine.h"
#include <switchyard/errors.h>

#include <vector>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "Pool: " + message);
}

void FillDefault(Dims& values, size_t n, int64_t fallback, const char* name) {
  if (values.empty()) values.assign(n, fallback);
  Require(values.size() == n, std::string(name) + " has " + std::to_string(values.size()) + " entries, expected " + std::to_string(n));
}

bool IsSlowImplementation(const std::string& impl) {
  return impl.rfind("simple", 0) == 0 || impl.rfind("ref", 0) == 0;
}

// Channel-blocked (8 channels, the AVX2 block; AVX-512 machines still have jit kernels for it)
// then channels-last layouts, for the spatial rank: oneDNN's jit pooling takes these, not NCHW.
std::vector<dnnl::memory::format_tag> FastLayouts(size_t rank) {
  using tag = dnnl::memory::format_tag;
  if (rank == 3) return {tag::nCw8c, tag::nwc};
  if (rank == 4) return {tag::nChw8c, tag::nhwc};
  return {tag::nCdhw8c, tag::ndhwc};
}

}  // namespace

PoolKind ParsePoolKind(const std::string& name) {
  if (name == "max") return PoolKind::kMax;
  if (name == "avgIncludePad") return PoolKind::kAvgIncludePad;
  if (name == "avgExcludePad") return PoolKind::kAvgExcludePad;
  throw CodedError("INVALID_ARGUMENT", "Pool: kind must be 'max', 'avgIncludePad' or 'avgExcludePad', got '" + name + "'");
}

Dims PoolOutputDims(PoolParams& p) {
  Require(p.input.size() >= 3 && p.input.size() <= 5, "input must have rank 3, 4 or 5, got " + DimsToString(p.input));
  const size_t spatial = p.input.size() - 2;
  ElementCount(p.input, "Pool: input");
  FillDefault(p.kernel, spatial, 1, "kernel");
  FillDefault(p.strides, spatial, 1, "strides");
  FillDefault(p.padsBegin, spatial, 0, "padsBegin");
  FillDefault(p.padsEnd, spatial, 0, "padsEnd");
  Dims out = {p.input[0], p.input[1]};
  for (size_t i = 0; i < spatial; ++i) {
    Require(p.kernel[i] >= 1 && p.strides[i] >= 1, "kernel and strides must be >= 1");
    Require(p.padsBegin[i] >= 0 && p.padsEnd[i] >= 0, "pads must be >= 0");
    // oneDNN requires every pad to be smaller than the kernel (no window made only of padding).
    Require(p.padsBegin[i] < p.kernel[i] && p.padsEnd[i] < p.kernel[i], "pads must be smaller than the kernel");
    const int64_t padded = p.input[i + 2] + p.padsBegin[i] + p.padsEnd[i];
    Require(padded >= p.kernel[i], "spatial axis " + std::to_string(i) + ": padded input is smaller than the kernel");
    out.push_back((padded - p.kernel[i]) / p.strides[i] + 1);
  }
  return out;
}

PoolKernel::PoolKernel(const PoolParams& params) : params_(params) {
  outputDims_ = PoolOutputDims(params_);
  const PoolParams& p = params_;
  userSrc_ = LayoutDesc(p.input, p.block);
  userDst_ = LayoutDesc(outputDims_, p.block);
  blockedMax_ = BlockedMaxPool2d::TryCreate(p, outputDims_);
  if (blockedMax_) return;
  const auto alg = p.kind == PoolKind::kMax             ? dnnl::algorithm::pooling_max
                   : p.kind == PoolKind::kAvgIncludePad ? dnnl::algorithm::pooling_avg_include_padding
                                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  ThreadScope threads(p.threads);
  auto makePd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, dst, p.strides, p.kernel, p.padsBegin, p.padsEnd);
    return dnnl::pooling_forward::primitive_desc(desc, UserScratchpadAttr(), CpuEngine());
  };
  pd_ = makePd(userSrc_, userDst_);
  if (p.block == 0 && IsSlowImplementation(pd_.impl_info_str())) {
    for (auto layout : FastLayouts(p.input.size())) {
      dnnl::memory::desc src(p.input, dnnl::memory::data_type::f32, layout);
      dnnl::memory::desc dst(outputDims_, dnnl::memory::data_type::f32, layout);
      dnnl::pooling_forward::primitive_desc candidate;
      try {
        candidate = makePd(src, dst);
      } catch (const dnnl::error&) {
        continue;  // no implementation for this layout: try the next
      }
      if (IsSlowImplementation(candidate.impl_info_str())) continue;
      pd_ = candidate;
      srcReorder_ = Reorder(userSrc_, src);
      dstReorder_ = Reorder(dst, userDst_);
      break;
    }
  }
  primitive_ = dnnl::pooling_forward(pd_);
}

void PoolKernel::Execute(const float* src, float* dst) const {
  if (blockedMax_) return blockedMax_->Execute(src, dst);
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  dnnl::memory userSrc(userSrc_, engine, const_cast<float*>(src));
  dnnl::memory userDst(userDst_, engine, dst);
  dnnl::memory srcMem = userSrc, dstMem = userDst;
  if (srcReorder_) {
    srcMem = TempMemory(pd_.src_desc(), TempSlot::kSrc);
    dstMem = TempMemory(pd_.dst_desc(), TempSlot::kDst);
    srcReorder_->Execute(stream, userSrc, srcMem);
  }
  ExecuteWithScratchpad(primitive_, stream, {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, dstMem}}, pd_.scratchpad_desc());
  if (dstReorder_) dstReorder_->Execute(stream, dstMem, userDst);
  stream.wait();
}

std::string PoolKernel::implementation() const { return blockedMax_ ? blockedMax_->implementation() : pd_.impl_info_str(); }

}  // namespace switchyard
