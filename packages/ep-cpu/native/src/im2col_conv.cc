#include "im2col_conv.h"

#include <algorithm>

#include "conv_kernel.h"
#include <switchyard/errors.h>
#include "scratchpad.h"

namespace switchyard {

namespace {

using im2col::kBlock;
using winograd::kPanel;

static_assert(im2col::kBlock == 8, "ServedByAvx2Blocked8 checks 8-channel blocks");

// Measured against oneDNN 2.6's jit:avx2 direct conv in ResNet-50 b1 on a 2-core AVX2 EPYC (1 and 2
// threads, per node in the model): its 3x3 stride-2 convs took 0.81..0.86x oneDNN's time at 7x7 and
// 0.93..0.96x at 14x14, but 1.03..1.05x at 28x28, where oneDNN's row blocking has enough pixels. Taking
// every conv on images of at most 49 pixels too (MobileNetV2's 1x1s) left MobileNetV2 level; at most 196,
// 1.19x slower: oneDNN's 1x1 kernel beats this GEMM.
constexpr int64_t kMaxPixels = 256;

bool Preferred(const ConvParams& p, const Dims& out) {
  const bool strided = p.strides[0] > 1 || p.strides[1] > 1;
  const bool spatial = p.weights[2] > 1 || p.weights[3] > 1;
  return strided && spatial && out[2] * out[3] <= kMaxPixels;
}

im2col::Geometry GeometryOf(const ConvParams& p, const Dims& out) {
  im2col::Geometry g{};
  static_cast<Conv2dSizes&>(g) = SizesOf(p, out);
  g.kernelH = p.weights[2];
  g.kernelW = p.weights[3];
  g.strideH = p.strides[0];
  g.strideW = p.strides[1];
  g.dilationH = p.dilations[0];
  g.dilationW = p.dilations[1];
  return g;
}

// Rows of the GEMM per work item (a multiple of its 6-row tile): enough items to share between threads
// on large images, while each item still reuses its weight panel over many rows.
constexpr int64_t kChunkRows = 96;
// Gathered rows + GEMM result per group of images (see Execute).
constexpr int64_t kGroupBytes = int64_t{4} << 20;

}  // namespace

Im2colConv::Im2colConv(const im2col::Geometry& geometry, int64_t batch, const Epilogue& epilogue, bool hasBias)
    : geometry_(geometry), batch_(batch), epilogue_(epilogue), hasBias_(hasBias) {}

bool Im2colConv::Chooses(const ConvParams& p, const Dims& out, bool constWeights, AlgorithmMode mode) {
  mode = WithEnvironment(mode, "SWITCHYARD_CPU_IM2COL");
  if (mode == AlgorithmMode::kNever || !ServedByAvx2Blocked8(p, out, constWeights)) return false;
  return mode == AlgorithmMode::kAlways || Preferred(p, out);
}

std::unique_ptr<Im2colConv> Im2colConv::TryCreate(const ConvParams& p, const Dims& out, const float* constWeights,
                                                  const float* constBias, AlgorithmMode mode) {
  if (!Chooses(p, out, constWeights != nullptr, mode)) return nullptr;
  const im2col::Geometry g = GeometryOf(p, out);
  std::unique_ptr<Im2colConv> conv(new Im2colConv(g, out[0], p.epilogue, p.hasBias));
  const int64_t c = g.inChannels, k = g.outChannels, taps = g.kernelH * g.kernelW, depth = g.depth();
  conv->weights_.assign(static_cast<size_t>(depth * k), 0.0f);
  for (int64_t ko = 0; ko < k; ++ko) {
    const int64_t panel = ko / kPanel, lane = ko % kPanel;
    const int64_t width = std::min<int64_t>(kPanel, k - panel * kPanel);
    float* packed = conv->weights_.data() + panel * kPanel * depth + lane;
    for (int64_t ci = 0; ci < c; ++ci) {
      const float* filter = constWeights + (ko * c + ci) * taps;
      const int64_t cb = ci / kBlock, channelLane = ci % kBlock;
      for (int64_t tap = 0; tap < taps; ++tap) packed[((cb * taps + tap) * kBlock + channelLane) * width] = filter[tap];
    }
  }
  if (p.hasBias && constBias) conv->bias_.assign(constBias, constBias + k);
  return conv;
}

void Im2colConv::Execute(const float* src, const float* bias, const float* sum, float* dst) const {
  const im2col::Geometry& g = geometry_;
  if (hasBias_ && bias_.empty() && !bias) throw CodedError("INVALID_ARGUMENT", "Conv: bias was not packed at construction and none was given");
  if (epilogue_.sum && !sum) throw CodedError("INVALID_ARGUMENT", "Conv: the epilogue sums Z but none was given");
  const winograd::OutputEpilogue epilogue{hasBias_ ? (bias_.empty() ? bias : bias_.data()) : nullptr,
                                          epilogue_.sum ? sum : nullptr, epilogue_.activation, epilogue_.alpha, epilogue_.beta};
  // Images go through in groups whose rows and result stay within a few MiB: one GEMM over a group
  // reads the weights once for all of its images (small images have many weights per pixel).
  const int64_t perImage = g.pixels() * (g.depth() + g.outChannels) * 4;
  const int64_t group = std::max<int64_t>(1, std::min<int64_t>(batch_, kGroupBytes / perImage));
  const int64_t srcImage = g.inChannels * g.inH * g.inW, dstImage = g.outChannels * g.pixels();
  for (int64_t n0 = 0; n0 < batch_; n0 += group) {
    winograd::OutputEpilogue e = epilogue;
    if (e.sum) e.sum += n0 * dstImage;
    RunImages(std::min(group, batch_ - n0), src + n0 * srcImage, e, dst + n0 * dstImage);
  }
}

void Im2colConv::RunImages(int64_t images, const float* src, const winograd::OutputEpilogue& epilogue, float* dst) const {
  const im2col::Geometry& g = geometry_;
  const int64_t pixels = g.pixels(), depth = g.depth(), k = g.outChannels;
  const int64_t rows = images * pixels, panels = (k + kPanel - 1) / kPanel, chunks = (rows + kChunkRows - 1) / kChunkRows;
  const int64_t srcImage = g.inChannels * g.inH * g.inW, dstImage = k * pixels, blocks = k / kBlock;
  // Held for the whole call: past TempMemory's cache limit the memory objects own the buffers.
  const dnnl::memory gatheredMemory = TempMemory(PlainDesc({rows * depth}), TempSlot::kSrc);
  const dnnl::memory productMemory = TempMemory(PlainDesc({rows * k}), TempSlot::kDst);
  float* gathered = static_cast<float*>(gatheredMemory.get_data_handle());
  float* product = static_cast<float*>(productMemory.get_data_handle());
  const float* packed = weights_.data();
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < images * g.outH; ++r) {
      const int64_t n = r / g.outH, first = (r % g.outH) * g.outW;
      im2col::GatherRows(g, src + n * srcImage, first, g.outW, gathered + (n * pixels + first) * depth);
    }
    // Panel-major: a thread's consecutive items share a weight panel, and the threads split the weights.
#pragma omp for schedule(static)
    for (int64_t item = 0; item < panels * chunks; ++item) {
      const int64_t panel = item / chunks, row = item % chunks * kChunkRows;
      winograd::PackedGemm(gathered + row * depth, std::min(kChunkRows, rows - row), depth, packed, k, panel, product + row * k);
    }
#pragma omp for schedule(static)
    for (int64_t item = 0; item < images * blocks; ++item) {
      const int64_t n = item / blocks;
      winograd::OutputEpilogue e = epilogue;
      if (e.sum) e.sum += n * dstImage;
      im2col::ScatterOutput(g, product + n * pixels * k, item % blocks, 1, e, dst + n * dstImage);
    }
  }
}

}  // namespace switchyard
