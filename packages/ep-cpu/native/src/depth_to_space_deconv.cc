#include "depth_to_space_deconv.h"

#include <cstring>
#include <vector>

#include "engine.h"
#include "scratchpad.h"

namespace switchyard {

namespace {

// The last three entries of `dims` after `from`, with leading 1s for fewer: spatial dims as 3-D.
Dims As3d(const Dims& dims, size_t from) {
  Dims out(3, 1);
  const size_t n = dims.size() - from;
  for (size_t i = 0; i < n; ++i) out[3 - n + i] = dims[from + i];
  return out;
}

}  // namespace

bool DepthToSpaceDeconv::Applies(const ConvTransposeParams& p, bool constWeights, bool constBias) {
  if (!constWeights || (p.hasBias && !constBias) || p.group != 1) return false;
  const size_t spatial = p.input.size() - 2;
  for (size_t i = 0; i < spatial; ++i) {
    if (p.strides[i] != p.weights[i + 2] || p.dilations[i] != 1 || p.padsBegin[i] != 0 || p.padsEnd[i] != 0 || p.outputPadding[i] != 0) return false;
  }
  const int64_t filters = p.weights[1];
  return p.dstBlock == 0 || filters % p.dstBlock == 0;
}

bool DepthToSpaceDeconv::Chooses(const ConvTransposeParams& p, bool constWeights, bool constBias, AlgorithmMode mode) {
  // Measured faster wherever it applies (k2 s2 and k4 s4, 8 to 256 channels, AVX2 and AVX-512), so auto = always.
  return WithEnvironment(mode, "SWITCHYARD_CPU_DEPTH_TO_SPACE") != AlgorithmMode::kNever && Applies(p, constWeights, constBias);
}

std::unique_ptr<const DepthToSpaceDeconv> DepthToSpaceDeconv::TryCreate(const ConvTransposeParams& p, const Dims& outputDims, const float* constWeights,
                                                                        const float* constBias, AlgorithmMode mode) {
  if (!Chooses(p, constWeights != nullptr, constBias != nullptr, mode)) return nullptr;
  return std::make_unique<const DepthToSpaceDeconv>(p, outputDims, constWeights, constBias);
}

DepthToSpaceDeconv::DepthToSpaceDeconv(const ConvTransposeParams& p, const Dims& outputDims, const float* w, const float* bias)
    : params_(p), outputDims_(outputDims), kernel3_(As3d(p.weights, 2)), input3_(As3d(p.input, 2)) {
  const int64_t channels = p.input[1], filters = p.weights[1];
  const int64_t positions = kernel3_[0] * kernel3_[1] * kernel3_[2];
  // W [C, M, K] → the 1x1 conv's [K · M, C]: output channel p · M + m reads W[c][m][p].
  std::vector<float> weights(static_cast<size_t>(positions * filters * channels));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t m = 0; m < filters; ++m)
      for (int64_t k = 0; k < positions; ++k) weights[static_cast<size_t>((k * filters + m) * channels + c)] = w[(c * filters + m) * positions + k];
  std::vector<float> biases;
  if (p.hasBias) {
    biases.resize(static_cast<size_t>(positions * filters));
    for (int64_t k = 0; k < positions; ++k) std::memcpy(&biases[static_cast<size_t>(k * filters)], bias, static_cast<size_t>(filters) * sizeof(float));
  }
  ConvParams conv;
  conv.input = p.input;
  conv.weights = {positions * filters, channels};
  conv.weights.resize(p.input.size(), 1);
  conv.hasBias = p.hasBias;
  conv.epilogue = p.epilogue;
  conv.threads = p.threads;
  conv.srcBlock = p.srcBlock;
  conv.dstBlock = p.dstBlock;  // staged in Y's layout, so the copy moves rows or lane vectors
  conv.preferPlain = true;     // plain X and Y: one GEMM, no NHWC reorders around it
  conv_ = std::make_unique<ConvKernel>(conv, weights.data(), p.hasBias ? biases.data() : nullptr);
  stagedElements_ = conv_->dstElements();
}

void DepthToSpaceDeconv::Execute(const float* src, float* dst) const {
  ThreadScope threads(params_.threads);
  // Held for the whole call: past TempMemory's cache limit the memory object owns the buffer.
  const dnnl::memory stagedMemory = TempMemory(PlainDesc({stagedElements_}), TempSlot::kStaged);
  float* staged = static_cast<float*>(stagedMemory.get_data_handle());
  conv_->Execute(src, nullptr, nullptr, nullptr, staged);
  if (params_.dstBlock) CopyBlocked(staged, dst);
  else CopyPlain(staged, dst);
}

// Y[n, m, d·kd + a, h·kh + b, w·kw + c] = staged[n, ((a·kh + b)·kw + c)·M + m, d, h, w]: one Y row per
// (n, m, d, a, h, b), interleaving kw staged rows.
void DepthToSpaceDeconv::CopyPlain(const float* staged, float* dst) const {
  const int64_t n = params_.input[0], filters = params_.weights[1];
  const int64_t kd = kernel3_[0], kh = kernel3_[1], kw = kernel3_[2];
  const int64_t depth = input3_[0], height = input3_[1], width = input3_[2];
  const int64_t planes = kd * kh * kw * filters;
  const int64_t rows = n * filters * depth * kd * height * kh;
  const int64_t rowLength = width * kw;
  const int64_t image = depth * height * width;
#pragma omp parallel for schedule(static) if (rows * rowLength >= (int64_t{1} << 15))
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r;
    const int64_t b = rest % kh;
    rest /= kh;
    const int64_t h = rest % height;
    rest /= height;
    const int64_t a = rest % kd;
    rest /= kd;
    const int64_t d = rest % depth;
    rest /= depth;
    const int64_t m = rest % filters, batch = rest / filters;
    float* out = dst + r * rowLength;
    const float* first = staged + (batch * planes + ((a * kh + b) * kw) * filters + m) * image + (d * height + h) * width;
    const int64_t step = filters * image;  // from one kw position's plane to the next
    if (kw == 1) {
      std::memcpy(out, first, static_cast<size_t>(width) * sizeof(float));
    } else if (kw == 2) {
      const float* second = first + step;
      for (int64_t w = 0; w < width; ++w) {
        out[2 * w] = first[w];
        out[2 * w + 1] = second[w];
      }
    } else {
      for (int64_t c = 0; c < kw; ++c) {
        const float* from = first + c * step;
        for (int64_t w = 0; w < width; ++w) out[w * kw + c] = from[w];
      }
    }
  }
}

// Blocked by b (b divides M): Y[n, mb, d·kd + a, h·kh + bb, w·kw + c, :] = staged[n, ((a·kh + bb)·kw + c)·M/b + mb, d, h, w, :].
void DepthToSpaceDeconv::CopyBlocked(const float* staged, float* dst) const {
  const int64_t block = params_.dstBlock;
  const int64_t n = params_.input[0], blocks = params_.weights[1] / block;
  const int64_t kd = kernel3_[0], kh = kernel3_[1], kw = kernel3_[2];
  const int64_t depth = input3_[0], height = input3_[1], width = input3_[2];
  const int64_t planes = kd * kh * kw * blocks;
  const int64_t rows = n * blocks * depth * kd * height * kh;
  const int64_t rowLength = width * kw * block;
  const int64_t image = depth * height * width * block;
  const size_t lanes = static_cast<size_t>(block) * sizeof(float);
#pragma omp parallel for schedule(static) if (rows * rowLength >= (int64_t{1} << 15))
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r;
    const int64_t bb = rest % kh;
    rest /= kh;
    const int64_t h = rest % height;
    rest /= height;
    const int64_t a = rest % kd;
    rest /= kd;
    const int64_t d = rest % depth;
    rest /= depth;
    const int64_t mb = rest % blocks, batch = rest / blocks;
    float* out = dst + r * rowLength;
    for (int64_t c = 0; c < kw; ++c) {
      const float* from = staged + (batch * planes + ((a * kh + bb) * kw + c) * blocks + mb) * image + (d * height + h) * width * block;
      for (int64_t w = 0; w < width; ++w) std::memcpy(out + (w * kw + c) * block, from + w * block, lanes);
    }
  }
}

}  // namespace switchyard
