#include "conv_transpose_kernel.h"

#include <cstring>

#include "conv_kernel.h"  // BlockOf
#include "depth_to_space_deconv.h"
#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "ConvTranspose: " + message);
}

void FillDefault(Dims& values, size_t n, int64_t fallback, const char* name) {
  if (values.empty()) values.assign(n, fallback);
  Require(values.size() == n, std::string(name) + " has " + std::to_string(values.size()) + " entries, expected " +
                                  std::to_string(n) + " (one per spatial axis)");
}

// ONNX's W [C, M/g, k...] as oneDNN's deconvolution weights: (M, C, k...) ungrouped, (g, M/g, C/g, k...)
// grouped, with strides that read ONNX's order as it is (input channels outermost), so packing is a reorder.
dnnl::memory::desc OnnxWeightsDesc(const Dims& w, int64_t group) {
  int64_t kernel = 1;
  for (size_t i = 2; i < w.size(); ++i) kernel *= w[i];
  const int64_t cg = w[0] / group, mg = w[1];
  Dims dims, strides;
  if (group > 1) {
    dims = {group, mg, cg};
    strides = {cg * mg * kernel, kernel, mg * kernel};
  } else {
    dims = {mg, cg};
    strides = {kernel, mg * kernel};
  }
  int64_t stride = kernel;
  for (size_t i = 2; i < w.size(); ++i) {
    stride /= w[i];
    dims.push_back(w[i]);
    strides.push_back(stride);
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

}  // namespace

Dims ConvTransposeOutputDims(ConvTransposeParams& p) {
  Require(p.input.size() >= 3 && p.input.size() <= 5, "input must have rank 3, 4 or 5 (1-D, 2-D, 3-D), got " + DimsToString(p.input));
  Require(p.weights.size() == p.input.size(), "weights " + DimsToString(p.weights) + " must have the input's rank " + std::to_string(p.input.size()));
  const size_t spatial = p.input.size() - 2;
  FillDefault(p.strides, spatial, 1, "strides");
  FillDefault(p.dilations, spatial, 1, "dilations");
  FillDefault(p.padsBegin, spatial, 0, "padsBegin");
  FillDefault(p.padsEnd, spatial, 0, "padsEnd");
  FillDefault(p.outputPadding, spatial, 0, "outputPadding");
  ElementCount(p.input, "ConvTranspose: input");
  ElementCount(p.weights, "ConvTranspose: weights");
  Require(p.group >= 1, "group must be >= 1, got " + std::to_string(p.group));
  Require(p.weights[0] == p.input[1], "weights " + DimsToString(p.weights) + " must have the input's " + std::to_string(p.input[1]) + " channels first");
  Require(p.input[1] % p.group == 0, "input channels " + std::to_string(p.input[1]) + " are not divisible by group " + std::to_string(p.group));

  Dims out = {p.input[0], p.weights[1] * p.group};
  for (size_t i = 0; i < spatial; ++i) {
    Require(p.strides[i] >= 1, "strides must be >= 1");
    Require(p.dilations[i] >= 1, "dilations must be >= 1 (ONNX counting: 1 = no dilation)");
    const int64_t extent = (p.weights[i + 2] - 1) * p.dilations[i] + 1;
    const int64_t size = p.strides[i] * (p.input[i + 2] - 1) + p.outputPadding[i] + extent - p.padsBegin[i] - p.padsEnd[i];
    Require(size >= 1, "spatial axis " + std::to_string(i) + ": the output would have " + std::to_string(size) + " elements (pads larger than the output)");
    out.push_back(size);
  }
  ElementCount(out, "ConvTranspose: output");
  return out;
}

ConvTransposeKernel::ConvTransposeKernel(const ConvTransposeParams& params, const float* constWeights, const float* constBias) : params_(params) {
  outputDims_ = ConvTransposeOutputDims(params_);
  const ConvTransposeParams& p = params_;
  const int64_t filters = outputDims_[1];
  const size_t spatial = p.input.size() - 2;

  userSrc_ = LayoutDesc(p.input, p.srcBlock);
  userDst_ = LayoutDesc(outputDims_, p.dstBlock);
  userBias_ = PlainDesc({filters});
  userWeights_ = OnnxWeightsDesc(p.weights, p.group);

  Dims dilations(spatial), padsEnd(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    dilations[i] = p.dilations[i] - 1;  // oneDNN counts gaps
    // Output padding extends the end: oneDNN takes it as less (possibly negative) end padding, but no
    // more negative than the stride allows (its descriptor check; ONNX's output_padding < stride).
    padsEnd[i] = p.padsEnd[i] - p.outputPadding[i];
    if (padsEnd[i] <= -p.strides[i]) {
      throw CodedError("UNSUPPORTED", "ConvTranspose: spatial axis " + std::to_string(i) + ": output padding beyond the end padding (" +
                                          std::to_string(-padsEnd[i]) + ") must be smaller than the stride " + std::to_string(p.strides[i]) +
                                          " for oneDNN's deconvolution");
    }
  }

  dnnl::primitive_attr attr = UserScratchpadAttr();
  AppendEpilogue(attr, p.epilogue);
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::deconvolution_direct;
  const auto srcAny = AnyDesc(p.input), weightsAny = AnyDesc(userWeights_.dims()), dstAny = AnyDesc(outputDims_);
  ThreadScope threads(p.threads);  // creation and execution must agree on the team size
  if (p.hasBias) {
    dnnl::deconvolution_forward::desc desc(prop, alg, srcAny, weightsAny, userBias_, dstAny, p.strides, dilations, p.padsBegin, padsEnd);
    pd_ = dnnl::deconvolution_forward::primitive_desc(desc, attr, CpuEngine());
  } else {
    dnnl::deconvolution_forward::desc desc(prop, alg, srcAny, weightsAny, dstAny, p.strides, dilations, p.padsBegin, padsEnd);
    pd_ = dnnl::deconvolution_forward::primitive_desc(desc, attr, CpuEngine());
  }
  depthToSpace_ = DepthToSpaceDeconv::TryCreate(p, outputDims_, constWeights, constBias, p.depthToSpace);
  if (depthToSpace_) return;
  primitive_ = dnnl::deconvolution_forward(pd_);
  srcReorder_ = ReorderIfNeeded(userSrc_, pd_.src_desc());
  weightsReorder_ = ReorderIfNeeded(userWeights_, pd_.weights_desc());
  dstReorder_ = ReorderIfNeeded(pd_.dst_desc(), userDst_);

  if (constWeights) {
    packedWeights_ = dnnl::memory(pd_.weights_desc(), CpuEngine());
    dnnl::memory user(userWeights_, CpuEngine(), const_cast<float*>(constWeights));
    if (weightsReorder_) {
      auto stream = NewStream();
      weightsReorder_->Execute(stream, user, *packedWeights_);
      stream.wait();
    } else {
      std::memcpy(packedWeights_->get_data_handle(), constWeights, userWeights_.get_size());
    }
  }
  if (p.hasBias && constBias) {
    packedBias_ = dnnl::memory(userBias_, CpuEngine());
    std::memcpy(packedBias_->get_data_handle(), constBias, userBias_.get_size());
  }
}

void ConvTransposeKernel::Execute(const float* src, const float* weights, const float* bias, float* dst) const {
  if (depthToSpace_) {
    depthToSpace_->Execute(src, dst);
    return;
  }
  ThreadScope threads(params_.threads);
  const auto& engine = CpuEngine();
  auto stream = NewStream();

  dnnl::memory userSrc(userSrc_, engine, const_cast<float*>(src));
  dnnl::memory srcMem = InPrimitiveLayout(stream, srcReorder_, userSrc, pd_.src_desc(), TempSlot::kSrc);

  dnnl::memory weightsMem;
  if (packedWeights_) {
    weightsMem = *packedWeights_;
  } else {
    if (!weights) throw CodedError("INVALID_ARGUMENT", "ConvTranspose: weights were not packed at construction and none were given");
    dnnl::memory user(userWeights_, engine, const_cast<float*>(weights));
    weightsMem = user;
    if (weightsReorder_) {
      weightsMem = dnnl::memory(pd_.weights_desc(), engine);
      weightsReorder_->Execute(stream, user, weightsMem);
    }
  }

  dnnl::memory userDst(userDst_, engine, dst);
  dnnl::memory dstMem = dstReorder_ ? TempMemory(pd_.dst_desc(), TempSlot::kDst) : userDst;
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, weightsMem}, {DNNL_ARG_DST, dstMem}};
  if (params_.hasBias) {
    if (packedBias_) {
      args.emplace(DNNL_ARG_BIAS, *packedBias_);
    } else {
      if (!bias) throw CodedError("INVALID_ARGUMENT", "ConvTranspose: bias was not packed at construction and none was given");
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(userBias_, engine, const_cast<float*>(bias)));
    }
  }
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  if (dstReorder_) dstReorder_->Execute(stream, dstMem, userDst);
  stream.wait();
}

int64_t ConvTransposeKernel::primitiveSrcBlock() const { return depthToSpace_ ? depthToSpace_->primitiveSrcBlock() : BlockOf(pd_.src_desc()); }
int64_t ConvTransposeKernel::primitiveDstBlock() const { return depthToSpace_ ? depthToSpace_->primitiveDstBlock() : BlockOf(pd_.dst_desc()); }

std::string ConvTransposeKernel::implementation() const { return depthToSpace_ ? depthToSpace_->implementation() : pd_.impl_info_str(); }

}  // namespace switchyard
