#include "conv_dw_kernel.h"

#include <optional>
#include <string>

#include <omp.h>

#include <cstring>
#include <vector>

#include "channel_split.h"
#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "ConvDw: " + message);
}

// Copies `data` (dense, in `user` layout) into memory of the primitive's `packed` layout.
dnnl::memory Pack(const dnnl::memory::desc& user, const dnnl::memory::desc& packed, const float* data) {
  dnnl::memory out(packed, CpuEngine());
  dnnl::memory in(user, CpuEngine(), const_cast<float*>(data));
  if (user == packed) {
    std::memcpy(out.get_data_handle(), data, user.get_size());
  } else {
    auto stream = NewStream();
    dnnl::reorder(in, out).execute(stream, in, out);
    stream.wait();
  }
  return out;
}

}  // namespace

ConvDwKernel::ConvDwKernel(const ConvDwParams& params, const float* weights, const float* bias, const float* dwWeights,
                           const float* dwBias)
    : params_(params) {
  const ConvDwParams& p = params_;
  Require(p.input.size() == 4, "input must be [N, C, H, W], got " + DimsToString(p.input));
  ElementCount(p.input, "ConvDw: input");
  Require(p.channels >= 1, "channels must be >= 1");
  Require(p.stride == 1 || p.stride == 2, "the depthwise stride must be 1 or 2, got " + std::to_string(p.stride));
  Require(!p.pointwise.sum && !p.depthwise.sum, "a sum epilogue is not served");
  Require(weights && dwWeights, "weights are required at construction");
  Require(!p.hasBias || bias, "bias declared but not given");
  Require(!p.hasDwBias || dwBias, "depthwise bias declared but not given");
  const int64_t n = p.input[0], c = p.input[1], h = p.input[2], w = p.input[3], m = p.channels;
  outputDims_ = {n, m, (h + p.stride - 1) / p.stride, (w + p.stride - 1) / p.stride};
  pass_ = TakeActivationPass(params_.depthwise, AlgorithmMode::kAuto);

  userSrc_ = LayoutDesc(p.input, p.srcBlock);
  userDst_ = LayoutDesc(outputDims_, p.dstBlock);
  if (TrySplitChannels(weights, bias, dwWeights, dwBias)) return;

  dnnl::primitive_attr attr = UserScratchpadAttr();
  dnnl::post_ops ops;
  AppendActivation(ops, p.pointwise.activation, p.pointwise.alpha, p.pointwise.beta);
  const auto f32 = dnnl::memory::data_type::f32;
  if (p.stride == 1) ops.append_dw_k3s1p1(f32, f32, f32, 0, {});
  else ops.append_dw_k3s2p1(f32, f32, f32, 0, {});
  AppendActivation(ops, p.depthwise.activation, p.depthwise.alpha, p.depthwise.beta);
  attr.set_post_ops(ops);

  // The 1x1 conv's own descriptor: its dst is the wide [N, M, H, W]; the primitive's dst is the depthwise output.
  const Dims wDims = {m, c, 1, 1};
  const Dims ones = {1, 1}, zeros = {0, 0};
  ThreadScope threads(p.threads);
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto wts = AnyDesc(wDims);
  const auto biasDesc = PlainDesc({m});
  auto makePd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
    dnnl::convolution_forward::desc desc = p.hasBias
        ? dnnl::convolution_forward::desc(prop, alg, src, wts, biasDesc, dst, ones, zeros, zeros)
        : dnnl::convolution_forward::desc(prop, alg, src, wts, dst, ones, zeros, zeros);
    return dnnl::convolution_forward::primitive_desc(desc, attr, CpuEngine());
  };
  // As for plain convs (conv_primitive_desc.h): blocked callers ask for their layout first (with `any`,
  // oneDNN 2.6 on AVX-512 picks channels-last brgconv kernels) unless a part would be a reference
  // kernel. The pair always runs in oneDNN's ref_fused_convolution wrapper around two jit primitives
  // ("ref_fused_convolution:any:jit_1x1:...:jit_dw:..."): only a "ref:any" part is slow.
  std::optional<dnnl::convolution_forward::primitive_desc> chosen;
  if (p.srcBlock > 0 && p.dstBlock > 0) {
    try {
      auto pd = makePd(userSrc_, LayoutDesc({n, m, h, w}, p.dstBlock));
      if (std::string(pd.impl_info_str()).find("ref:any") == std::string::npos) chosen = pd;
    } catch (const dnnl::error&) {
      // No fused kernel for these layouts: `any` below.
    }
  }
  pd_ = chosen ? *chosen : makePd(AnyDesc(p.input), AnyDesc({n, m, h, w}));
  primitive_ = dnnl::convolution_forward(pd_);
  Require(pd_.dst_desc().dims() == outputDims_, "oneDNN's fused output " + DimsToString(pd_.dst_desc().dims()) + " differs from " +
                                                    DimsToString(outputDims_));
  srcReorder_ = ReorderIfNeeded(userSrc_, pd_.src_desc());
  dstReorder_ = ReorderIfNeeded(pd_.dst_desc(), userDst_);

  weights_ = Pack(PlainDesc(wDims), pd_.weights_desc(), weights);
  if (p.hasBias) bias_ = Pack(biasDesc, biasDesc, bias);
  const int dwWeightsArg = DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS;
  const int dwBiasArg = DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS;
  dwWeights_ = Pack(PlainDesc({m, 1, 1, 3, 3}), pd_.query_md(dnnl::query::exec_arg_md, dwWeightsArg), dwWeights);
  const auto dwBiasDesc = pd_.query_md(dnnl::query::exec_arg_md, dwBiasArg);
  // The depthwise bias is always an argument of the fused primitive: zeros when the model has none.
  std::vector<float> zerosBias;
  if (!p.hasDwBias) zerosBias.assign(m, 0.0f);
  dwBias_ = Pack(PlainDesc({m}), dwBiasDesc, p.hasDwBias ? dwBias : zerosBias.data());
}

bool ConvDwKernel::TrySplitChannels(const float* weights, const float* bias, const float* dwWeights, const float* dwBias) {
  const ConvDwParams& p = params_;
  const int threads = p.threads > 0 ? p.threads : omp_get_max_threads();
  const int64_t block = p.dstBlock, m = p.channels, c = p.input[1], pixels = outputDims_[2] * outputDims_[3];
  if (p.srcBlock != block || !SplitsOutputChannels(p.channelSplit, threads, p.input[0], m, block, pixels)) return false;
  const int64_t slice = m / threads;
  ConvDwParams part = p;
  part.channels = slice;
  part.threads = 1;
  part.channelSplit = AlgorithmMode::kNever;
  for (int t = 0; t < threads; ++t) {
    const int64_t first = t * slice;
    auto kernel = std::make_unique<ConvDwKernel>(part, weights + first * c, p.hasBias ? bias + first : nullptr, dwWeights + first * 9,
                                                 p.hasDwBias ? dwBias + first : nullptr);
    // Slices are only contiguous in the caller's layout: a part that reorders would not write its slice.
    if (kernel->srcReorder_ || kernel->dstReorder_) {
      parts_.clear();
      return false;
    }
    parts_.push_back(std::move(kernel));
  }
  partElements_ = slice * pixels;  // one image: a slice of whole channel blocks is contiguous
  return true;
}

std::string ConvDwKernel::implementation() const {
  if (!parts_.empty()) return parts_[0]->implementation() + " x" + std::to_string(parts_.size()) + " (output-channel split)" + ActivationPassSuffix(pass_);
  return std::string(pd_.impl_info_str()) + ActivationPassSuffix(pass_);
}

void ConvDwKernel::Execute(const float* src, float* dst) const {
  ExecuteFused(src, dst);
  if (pass_.active()) {
    ThreadScope threads(params_.threads);
    ApplyActivationPass(pass_, dst, outputDims_, params_.dstBlock);
  }
}

void ConvDwKernel::ExecuteFused(const float* src, float* dst) const {
  if (!parts_.empty()) {
    RunParts(parts_, [&](const ConvDwKernel& part, int i) { part.Execute(src, dst + i * partElements_); });
    return;
  }
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();
  dnnl::memory userSrc(userSrc_, engine, const_cast<float*>(src));
  dnnl::memory srcMem = InPrimitiveLayout(stream, srcReorder_, userSrc, pd_.src_desc(), TempSlot::kSrc);
  dnnl::memory userDst(userDst_, engine, dst);
  dnnl::memory dstMem = dstReorder_ ? TempMemory(pd_.dst_desc(), TempSlot::kDst) : userDst;
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, srcMem},
                                                {DNNL_ARG_WEIGHTS, weights_},
                                                {DNNL_ARG_DST, dstMem},
                                                {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, dwWeights_},
                                                {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, dwBias_}};
  if (params_.hasBias) args.emplace(DNNL_ARG_BIAS, bias_);
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  if (dstReorder_) dstReorder_->Execute(stream, dstMem, userDst);
  stream.wait();
}

}  // namespace switchyard
