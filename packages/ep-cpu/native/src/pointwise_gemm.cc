#include "pointwise_gemm.h"

#include <cstring>

#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

using tag = dnnl::memory::format_tag;

// The M rows as an image of M×1 pixels, channels last: exactly the row-major matrix's bytes.
dnnl::memory::desc RowsAsImage(int64_t rows, int64_t channels) {
  return dnnl::memory::desc({1, channels, rows, 1}, dnnl::memory::data_type::f32, tag::nhwc);
}

}  // namespace

PointwiseGemm::PointwiseGemm(const PointwiseGemmParams& params, const float* constB, const float* constBias) : params_(params) {
  const PointwiseGemmParams& p = params_;
  if (p.m <= 0 || p.k <= 0 || p.n <= 0) throw CodedError("INVALID_ARGUMENT", "PointwiseGemm: M, K and N must be positive");
  if (!constB) throw CodedError("INVALID_ARGUMENT", "PointwiseGemm: B must be constant");
  if (p.epilogue.sum) throw CodedError("INVALID_ARGUMENT", "PointwiseGemm: a sum epilogue is not supported");
  userSrc_ = RowsAsImage(p.m, p.k);
  userDst_ = RowsAsImage(p.m, p.n);
  userBias_ = PlainDesc({p.n});
  // Filters [N, K, 1, 1]: B [K, N] has filter o's input i at i·N + o (ihwo); B [N, K] is oihw as is.
  const Dims weightDims = {p.n, p.k, 1, 1};
  userWeights_ = dnnl::memory::desc(weightDims, dnnl::memory::data_type::f32, p.transB ? tag::oihw : tag::ihwo);

  dnnl::primitive_attr attr = UserScratchpadAttr();
  AppendEpilogue(attr, p.epilogue);
  const Dims ones = {1, 1}, zeros = {0, 0};
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  ThreadScope threads(p.threads);
  auto makePd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
    const auto weightsAny = AnyDesc(weightDims);
    if (p.hasBias) {
      dnnl::convolution_forward::desc desc(prop, alg, src, weightsAny, userBias_, dst, ones, zeros, zeros, zeros);
      return dnnl::convolution_forward::primitive_desc(desc, attr, CpuEngine());
    }
    dnnl::convolution_forward::desc desc(prop, alg, src, weightsAny, dst, ones, zeros, zeros, zeros);
    return dnnl::convolution_forward::primitive_desc(desc, attr, CpuEngine());
  };
  // Channels-last in and out needs no activation reorder at all; when oneDNN has no jit kernel for
  // that, let it choose (blocked) layouts and reorder around the call.
  pd_ = makePd(userSrc_, userDst_);
  if (!Fast()) {
    pd_ = makePd(AnyDesc(userSrc_.dims()), AnyDesc(userDst_.dims()));
    srcReorder_ = ReorderIfNeeded(userSrc_, pd_.src_desc());
    dstReorder_ = ReorderIfNeeded(pd_.dst_desc(), userDst_);
  }
  primitive_ = dnnl::convolution_forward(pd_);

  packedWeights_ = dnnl::memory(pd_.weights_desc(), CpuEngine());
  {
    Reorder pack(userWeights_, pd_.weights_desc());
    auto stream = NewStream();
    pack.Execute(stream, dnnl::memory(userWeights_, CpuEngine(), const_cast<float*>(constB)), packedWeights_);
    stream.wait();
  }
  if (p.hasBias && constBias) {
    packedBias_ = dnnl::memory(userBias_, CpuEngine());
    std::memcpy(packedBias_->get_data_handle(), constBias, userBias_.get_size());
  }
}

bool PointwiseGemm::Fast() const { return implementation().rfind("jit_1x1", 0) == 0; }

bool PointwiseSplitsWell(int64_t m, int threads) {
  if (threads <= 0) threads = DefaultThreads();
  return threads == 1 || m > 1;
}

void PointwiseGemm::UnpackB(float* out) const {
  ThreadScope threads(params_.threads);
  CopyIntoLayout(packedWeights_, userWeights_, out);
}

void PointwiseGemm::Execute(const float* a, const float* bias, float* y) const {
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  dnnl::memory src(userSrc_, engine, const_cast<float*>(a));
  dnnl::memory dst(userDst_, engine, y);
  dnnl::memory srcMem = InPrimitiveLayout(stream, srcReorder_, src, pd_.src_desc(), TempSlot::kSrc);
  dnnl::memory dstMem = dstReorder_ ? TempMemory(pd_.dst_desc(), TempSlot::kDst) : dst;
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, packedWeights_}, {DNNL_ARG_DST, dstMem}};
  if (params_.hasBias) {
    if (packedBias_) {
      args.emplace(DNNL_ARG_BIAS, *packedBias_);
    } else {
      if (!bias) throw CodedError("INVALID_ARGUMENT", "PointwiseGemm: bias was not packed at construction and none was given");
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(userBias_, engine, const_cast<float*>(bias)));
    }
  }
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  if (dstReorder_) dstReorder_->Execute(stream, dstMem, dst);
  stream.wait();
}

std::string PointwiseGemm::implementation() const { return pd_.impl_info_str(); }

}  // namespace switchyard
