#include "conv_kernel.h"

#include <algorithm>

#include <cstring>

#include "conv_primitive_desc.h"
#include "conv_tap_trim.h"
#include "engine.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw CodedError("INVALID_ARGUMENT", "Conv: " + message);
}

void FillDefault(Dims& values, size_t n, int64_t fallback, const char* name) {
  if (values.empty()) values.assign(n, fallback);
  Require(values.size() == n, std::string(name) + " has " + std::to_string(values.size()) + " entries, expected " +
                                  std::to_string(n) + " (one per spatial axis)");
}

}  // namespace

Dims ConvOutputDims(ConvParams& p) {
  Require(p.input.size() >= 3 && p.input.size() <= 5, "input must have rank 3, 4 or 5 (1-D, 2-D, 3-D conv), got " + DimsToString(p.input));
  Require(p.weights.size() == p.input.size(), "weights " + DimsToString(p.weights) + " must have the input's rank " + std::to_string(p.input.size()));
  const size_t spatial = p.input.size() - 2;
  FillDefault(p.strides, spatial, 1, "strides");
  FillDefault(p.dilations, spatial, 1, "dilations");
  FillDefault(p.padsBegin, spatial, 0, "padsBegin");
  FillDefault(p.padsEnd, spatial, 0, "padsEnd");
  ElementCount(p.input, "Conv: input");
  ElementCount(p.weights, "Conv: weights");
  Require(p.group >= 1, "group must be >= 1, got " + std::to_string(p.group));
  const int64_t channels = p.input[1], filters = p.weights[0];
  Require(p.weights[1] * p.group == channels, "weights " + DimsToString(p.weights) + " with group " + std::to_string(p.group) +
                                                   " need input channels " + std::to_string(p.weights[1] * p.group) + ", input has " +
                                                   std::to_string(channels));
  Require(filters % p.group == 0, "output channels " + std::to_string(filters) + " are not divisible by group " + std::to_string(p.group));

  Dims out = {p.input[0], filters};
  for (size_t i = 0; i < spatial; ++i) {
    Require(p.strides[i] >= 1, "strides must be >= 1");
    Require(p.dilations[i] >= 1, "dilations must be >= 1 (ONNX counting: 1 = no dilation)");
    Require(p.padsBegin[i] >= 0 && p.padsEnd[i] >= 0, "pads must be >= 0");
    const int64_t extent = (p.weights[i + 2] - 1) * p.dilations[i] + 1;
    const int64_t padded = p.input[i + 2] + p.padsBegin[i] + p.padsEnd[i];
    Require(padded >= extent, "spatial axis " + std::to_string(i) + ": padded input " + std::to_string(padded) +
                                  " is smaller than the dilated kernel " + std::to_string(extent));
    out.push_back((padded - extent) / p.strides[i] + 1);
  }
  return out;
}

bool ServedByAvx2Blocked8(const ConvParams& p, const Dims& out, bool constWeights) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  constexpr int64_t kBlock = 8;
  if (!constWeights || !avx2 || p.input.size() != 4 || p.group != 1 || !Avx2Activates(p.epilogue.activation)) return false;
  if (p.srcBlock != kBlock || p.dstBlock != kBlock) return false;
  if (p.epilogue.sum && (p.sumBlock != kBlock || p.epilogue.sumScale != 1.0f)) return false;
  return p.input[1] % kBlock == 0 && p.weights[0] % kBlock == 0 && out[0] > 0 && out[2] > 0 && out[3] > 0;
}

Conv2dSizes SizesOf(const ConvParams& p, const Dims& out) {
  return Conv2dSizes{p.input[1], p.weights[0], p.input[2], p.input[3], out[2], out[3], p.padsBegin[0], p.padsBegin[1]};
}

ConvKernel::ConvKernel(const ConvParams& params, const float* constWeights, const float* constBias) : params_(params) {
  outputDims_ = ConvOutputDims(params_);
  pass_ = TakeActivationPass(params_.epilogue, params_.activationPass);
  const ConvParams& p = params_;
  const int64_t filters = p.weights[0];

  userSrc_ = LayoutDesc(p.input, p.srcBlock);
  userDst_ = LayoutDesc(outputDims_, p.dstBlock);
  userSum_ = LayoutDesc(outputDims_, p.sumBlock);
  userBias_ = PlainDesc({filters});
  userWeights_ = PlainDesc(GroupedWeightDims(p));

  // Taps that read only padding dropped (conv_tap_trim.h): the smaller conv runs instead, whatever serves it.
  if (constWeights) {
    if (auto trimmed = WithoutPaddingTaps(p, outputDims_)) {
      const std::vector<float> kept = KeptTaps(p, *trimmed, constWeights);
      trimmed_ = std::make_unique<const ConvKernel>(*trimmed, kept.data(), constBias);
      return;
    }
  }
  ThreadScope threads(p.threads);  // creation and execution must agree on the team size
  pd_ = ChooseConvPrimitiveDesc(p, outputDims_, constWeights != nullptr);
  // The primitive descriptor stays (it answers primitiveLayouts); the primitive and packed weights are skipped.
  winograd_ = WinogradConv::TryCreate(p, outputDims_, constWeights, constBias, p.winograd);
  if (winograd_) return;
  im2col_ = Im2colConv::TryCreate(p, outputDims_, constWeights, constBias, p.im2col);
  if (im2col_) return;
  if (TrySplitByOutputChannels(constWeights, constBias)) return;
  primitive_ = dnnl::convolution_forward(pd_);
  srcReorder_ = ReorderIfNeeded(userSrc_, pd_.src_desc());
  weightsReorder_ = ReorderIfNeeded(userWeights_, pd_.weights_desc());
  dstReorder_ = ReorderIfNeeded(pd_.dst_desc(), userDst_);
  if (p.epilogue.sum) sumReorder_ = ReorderIfNeeded(userSum_, pd_.dst_desc());

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

bool ConvKernel::weightsUnpackable() const {
  if (trimmed_ || winograd_ || im2col_) return false;  // a trimmed kernel lacks the dropped taps
  if (!parts_.empty()) return std::all_of(parts_.begin(), parts_.end(), [](const auto& part) { return part->weightsUnpackable(); });
  return packedWeights_.has_value() && !IsOneDnnWinograd(pd_);
}

void ConvKernel::UnpackWeights(float* out) const {
  if (!weightsUnpackable()) throw CodedError("INVALID_ARGUMENT", "Conv: weights packed for " + implementation() + " cannot be unpacked");
  if (!parts_.empty()) {
    // Each part holds a contiguous slice of output channels, in order.
    for (const auto& part : parts_) {
      part->UnpackWeights(out);
      out += ElementCount(part->params().weights, "Conv: weights");
    }
    return;
  }
  ThreadScope threads(params_.threads);
  CopyIntoLayout(*packedWeights_, userWeights_, out);
}

void ConvKernel::Execute(const float* src, const float* weights, const float* bias, const float* sum, float* dst) const {
  ExecuteConv(src, weights, bias, sum, dst);
  if (pass_.active()) {
    ThreadScope threads(params_.threads);
    ApplyActivationPass(pass_, dst, outputDims_, params_.dstBlock);
  }
}

void ConvKernel::ExecuteConv(const float* src, const float* weights, const float* bias, const float* sum, float* dst) const {
  if (trimmed_) {
    trimmed_->Execute(src, nullptr, bias, sum, dst);
    return;
  }
  ThreadScope threads(params_.threads);
  if (winograd_) {
    winograd_->Execute(src, bias, sum, dst);
    return;
  }
  if (im2col_) {
    im2col_->Execute(src, bias, sum, dst);
    return;
  }
  if (!parts_.empty()) {
    ExecuteParts(src, sum, dst);
    return;
  }
  const auto& engine = CpuEngine();
  auto stream = NewStream();

  dnnl::memory userSrc(userSrc_, engine, const_cast<float*>(src));
  dnnl::memory srcMem = InPrimitiveLayout(stream, srcReorder_, userSrc, pd_.src_desc(), TempSlot::kSrc);

  dnnl::memory weightsMem;
  if (packedWeights_) {
    weightsMem = *packedWeights_;
  } else {
    if (!weights) throw CodedError("INVALID_ARGUMENT", "Conv: weights were not packed at construction and none were given");
    dnnl::memory user(userWeights_, engine, const_cast<float*>(weights));
    weightsMem = user;
    if (weightsReorder_) {
      weightsMem = dnnl::memory(pd_.weights_desc(), engine);
      weightsReorder_->Execute(stream, user, weightsMem);
    }
  }

  dnnl::memory userDst(userDst_, engine, dst);
  dnnl::memory dstMem = dstReorder_ ? TempMemory(pd_.dst_desc(), TempSlot::kDst) : userDst;
  if (params_.epilogue.sum) {
    // The sum post-op reads dst's previous contents, in the primitive's own dst layout.
    if (!sum) throw CodedError("INVALID_ARGUMENT", "Conv: the epilogue sums Z but none was given");
    dnnl::memory userSum(userSum_, engine, const_cast<float*>(sum));
    const auto* target = static_cast<const char*>(dstMem.get_data_handle());
    const auto* z = reinterpret_cast<const char*>(sum);
    const bool overlaps = z < target + pd_.dst_desc().get_size() && target < z + userSum_.get_size();
    if (!sumReorder_) {
      if (z != target) std::memmove(dstMem.get_data_handle(), sum, userSum_.get_size());
    } else if (!overlaps) {
      sumReorder_->Execute(stream, userSum, dstMem);
    } else {
      // Z shares dst's buffer in another layout (an in-place plan): a reorder must not read what it writes.
      // kScratchpad is free until the convolution itself runs (kSrc may hold the reordered src).
      auto staged = TempMemory(pd_.dst_desc(), TempSlot::kScratchpad);
      sumReorder_->Execute(stream, userSum, staged);
      stream.wait();
      std::memcpy(dstMem.get_data_handle(), staged.get_data_handle(), pd_.dst_desc().get_size());
    }
  }

  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, weightsMem}, {DNNL_ARG_DST, dstMem}};
  if (params_.hasBias) {
    if (packedBias_) {
      args.emplace(DNNL_ARG_BIAS, *packedBias_);
    } else {
      if (!bias) throw CodedError("INVALID_ARGUMENT", "Conv: bias was not packed at construction and none was given");
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(userBias_, engine, const_cast<float*>(bias)));
    }
  }
  ExecuteWithScratchpad(primitive_, stream, std::move(args), pd_.scratchpad_desc());
  if (dstReorder_) dstReorder_->Execute(stream, dstMem, userDst);
  stream.wait();
}

std::string ConvKernel::implementation() const {
  std::string name;
  if (trimmed_) name = trimmed_->implementation() + " (padding-only taps trimmed)";
  else if (winograd_) name = winograd_->implementation();
  else if (im2col_) name = im2col_->implementation();
  else if (!parts_.empty()) name = parts_[0]->implementation() + " x" + std::to_string(parts_.size()) + " (output-channel split)";
  else name = pd_.impl_info_str();
  return name + ActivationPassSuffix(pass_);
}

int64_t ConvKernel::primitiveSrcBlock() const { return trimmed_ ? trimmed_->primitiveSrcBlock() : BlockOf(pd_.src_desc()); }
int64_t ConvKernel::primitiveDstBlock() const { return trimmed_ ? trimmed_->primitiveDstBlock() : BlockOf(pd_.dst_desc()); }

int64_t BlockOf(const dnnl::memory::desc& desc) {
  const Dims dims = desc.dims();
  for (int64_t block : {0, 8, 16}) {
    try {
      if (LayoutDesc(dims, block) == desc) return block;
    } catch (const CodedError&) {
      return -1;
    }
  }
  return -1;
}

}  // namespace switchyard
