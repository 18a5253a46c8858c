#include "conv_primitive_desc.h"

#include <optional>
#include <string>

#include "engine.h"
#include "post_ops.h"
#include "scratchpad.h"

namespace switchyard {

namespace {

bool IsReference(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

// Measured with oneDNN 2.6.3 on a 2-core AVX-512 EPYC (nChw16c, 2 threads, against its direct conv, the
// scratchpad kept: see WinogradScratchpadKept): Winograd took 0.32..0.55x the time from 64 channels and
// 2^23 multiply-adds up (ResNet-50 and UNet layers, b1 and b8), 0.53..0.79x at 32..48 channels (32 at
// 56x56 up to 1024x1024), lost below 2^23 (64 channels at 14x14: 1.11x) and gained little at 16
// channels (0.86..0.95x), where it is not taken. Whole models with the 32-channel layers in: UNet
// 1024x1024 0.95x, CRNN 0.97x. Its error against direct: ~1e-6 of the output's scale.
bool WinogradPreferred(const ConvParams& p, const Dims& out) {
  const int64_t macs = out[0] * out[2] * out[3] * p.input[1] * p.weights[0] * 9;
  return p.input[1] >= 32 && p.weights[0] >= 32 && macs >= (int64_t{1} << 23);
}

// oneDNN 2.6's AVX-512 Winograd picks a schedule per shape: tiles kept in cache (small scratchpad), or the
// whole image's transformed input and output in its scratchpad (tens to hundreds of MiB from 128 channels at
// 256 x 256). The latter measured 2-7x slower than its direct conv while its scratchpad was allocated per
// call (UNet's 128..512-channel layers, ResNet-50 b8's 256-channel ones, 2 threads: ~40K page faults a
// call) and 0.32-0.55x once the executing thread keeps it (scratchpad.cc), so Winograd is taken only while
// its scratchpad is one the thread keeps between calls.
bool WinogradScratchpadKept(const dnnl::convolution_forward::primitive_desc& pd) {
  return pd.scratchpad_desc().get_size() <= KeptTempBytes(TempSlot::kScratchpad);
}

// A blocked (ungrouped) conv whose input fills at most half a block (a tiny model's 3..8-channel layers)
// pays for a whole block of lanes, most of them zero, and on AVX-512 oneDNN 2.6 serves it with brgconv,
// slow at these sizes. Its jit kernel reading the input in plain NCHW, behind a reorder inside the
// kernel, measured (2-core AVX-512 EPYC, 1 thread, best of 20 blocks, reorder included): 8 -> 16
// channels at 16x16 8.1 -> 5.7 us, 3 -> 8 at 32x32 13.5 -> 8.9 us, 6 -> 24 at 112x112 323 -> 252 us,
// 8 -> 16 at 56x56 even; the demo's tiny CNN 0.85-0.99x in A/B runs. Capped at AVX2 (8-lane blocks,
// so 3..4 channels) 0.9-0.97x.
// At 12 of 16 lanes the reorder cost more than the lanes saved (120 -> 141..155 us at 56x56).
bool PlainSourceFirst(const ConvParams& p) {
  return p.group == 1 && p.srcBlock > 0 && p.input[1] * 2 <= p.srcBlock;
}

bool WinogradShape(const ConvParams& p) {
  if (p.input.size() != 4 || p.group != 1 || p.weights[2] != 3 || p.weights[3] != 3) return false;
  for (size_t i = 0; i < 2; ++i)
    if (p.strides[i] != 1 || p.dilations[i] != 1) return false;
  return true;
}

class Builder {
 public:
  Builder(const ConvParams& p) : p_(p), weights_(AnyDesc(GroupedWeightDims(p))), attr_(UserScratchpadAttr()) {
    for (int64_t d : p.dilations) gaps_.push_back(d - 1);  // oneDNN counts gaps
    AppendEpilogue(attr_, p.epilogue);
  }

  dnnl::convolution_forward::primitive_desc Build(dnnl::algorithm alg, const dnnl::memory::desc& src, const dnnl::memory::desc& dst) const {
    const auto prop = dnnl::prop_kind::forward_inference;
    if (p_.hasBias) {
      dnnl::convolution_forward::desc desc(prop, alg, src, weights_, PlainDesc({p_.weights[0]}), dst, p_.strides, gaps_, p_.padsBegin,
                                           p_.padsEnd);
      return dnnl::convolution_forward::primitive_desc(desc, attr_, CpuEngine());
    }
    dnnl::convolution_forward::desc desc(prop, alg, src, weights_, dst, p_.strides, gaps_, p_.padsBegin, p_.padsEnd);
    return dnnl::convolution_forward::primitive_desc(desc, attr_, CpuEngine());
  }

  // A jit (not reference) implementation, or nothing when oneDNN has none for these layouts and epilogue.
  std::optional<dnnl::convolution_forward::primitive_desc> TryBuild(dnnl::algorithm alg, const dnnl::memory::desc& src,
                                                                    const dnnl::memory::desc& dst) const {
    try {
      auto pd = Build(alg, src, dst);
      if (!IsReference(pd)) return pd;
    } catch (const dnnl::error&) {
      // Unimplemented: the caller tries its next choice.
    }
    return std::nullopt;
  }

 private:
  const ConvParams& p_;
  dnnl::memory::desc weights_;
  dnnl::primitive_attr attr_;
  Dims gaps_;
};

}  // namespace

Dims GroupedWeightDims(const ConvParams& p) {
  if (p.group <= 1) return p.weights;
  Dims dims = {p.group, p.weights[0] / p.group};
  dims.insert(dims.end(), p.weights.begin() + 1, p.weights.end());
  return dims;
}

dnnl::convolution_forward::primitive_desc ChooseConvPrimitiveDesc(const ConvParams& p, const Dims& out, bool constWeights) {
  const Builder builder(p);
  const auto srcAny = AnyDesc(p.input), dstAny = AnyDesc(out);
  if (p.srcBlock > 0 || p.dstBlock > 0) {
    const auto src = p.srcBlock > 0 ? LayoutDesc(p.input, p.srcBlock) : srcAny;
    const auto dst = p.dstBlock > 0 ? LayoutDesc(out, p.dstBlock) : dstAny;
    const AlgorithmMode winograd = WithEnvironment(p.winograd, "SWITCHYARD_CPU_WINOGRAD");
    const bool tryWinograd = constWeights && p.srcBlock == 16 && p.dstBlock == 16 && WinogradShape(p) && winograd != AlgorithmMode::kNever &&
                             (winograd == AlgorithmMode::kAlways || WinogradPreferred(p, out));
    if (tryWinograd) {
      auto pd = builder.TryBuild(dnnl::algorithm::convolution_winograd, src, dst);
      if (pd && (winograd == AlgorithmMode::kAlways || WinogradScratchpadKept(*pd))) return *pd;
    }
    if (PlainSourceFirst(p)) {
      if (auto pd = builder.TryBuild(dnnl::algorithm::convolution_direct, LayoutDesc(p.input, 0), dst)) return *pd;
    }
    if (auto pd = builder.TryBuild(dnnl::algorithm::convolution_direct, src, dst)) return *pd;
  }
  if (p.preferPlain && p.srcBlock == 0 && p.dstBlock == 0) {
    if (auto pd = builder.TryBuild(dnnl::algorithm::convolution_direct, LayoutDesc(p.input, 0), LayoutDesc(out, 0))) return *pd;
  }
  return builder.Build(dnnl::algorithm::convolution_direct, srcAny, dstAny);
}

bool IsOneDnnWinograd(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).find("wino") != std::string::npos;
}

}  // namespace switchyard
