#include "winograd_conv.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "conv_kernel.h"
#include <switchyard/errors.h>

namespace switchyard {

namespace {

using winograd::kElements;
using winograd::kInTile;
using winograd::kOutTile;
using winograd::kPanel;

// G of F(4x4, 3x3): the filter transform U = G g Gᵀ (done once, in double).
constexpr double kG[kInTile][3] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1},
};

static_assert(winograd::kBlock == 8, "ServedByAvx2Blocked8 checks 8-channel blocks");

bool Serves(const ConvParams& p, const Dims& out, bool constWeights) {
  if (!ServedByAvx2Blocked8(p, out, constWeights)) return false;
  if (p.weights[2] != 3 || p.weights[3] != 3) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (p.strides[i] != 1 || p.dilations[i] != 1) return false;
  }
  return true;
}

// Measured against oneDNN 2.6's jit:avx2 direct conv on a 2-core AVX2 EPYC (1 and 2 threads):
// Winograd took 0.3x..0.75x the time on every ResNet-50 / SqueezeNet 3x3 shape (7x7x512 included,
// though its weights, 4x larger once transformed, make it memory-bound) and 0.5x..0.8x down to 8 channels at 32x32;
// only convs of about a million multiply-adds or less (1x8x256x7x7, 64 channels at 3x3) lost, by
// 10..50%, where the fixed cost of three passes over small buffers dominates.
bool Preferred(const winograd::Geometry& g) {
  const int64_t directMacs = g.batch * g.outH * g.outW * g.inChannels * g.outChannels * 9;
  return directMacs >= (int64_t{1} << 20);
}

// V + M bytes per group of images in a batch (see Execute).
constexpr int64_t kGroupBytes = int64_t{4} << 20;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Grow-only per-thread buffers for V and M: fresh multi-megabyte allocations per call would pay page faults.
float* ThreadBuffer(int slot, size_t floats) {
  struct Buffer {
    std::unique_ptr<void, FreeDeleter> data;
    size_t bytes = 0;
  };
  thread_local Buffer buffers[2];
  Buffer& b = buffers[slot];
  const size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
  if (b.bytes < bytes) {
    b.data.reset();
    b.data.reset(std::aligned_alloc(64, bytes));
    if (!b.data) {
      b.bytes = 0;
      throw std::bad_alloc();
    }
    b.bytes = bytes;
  }
  return static_cast<float*>(b.data.get());
}

}  // namespace

WinogradConv::WinogradConv(const winograd::Geometry& geometry, const Epilogue& epilogue, bool hasBias)
    : geometry_(geometry), epilogue_(epilogue), hasBias_(hasBias) {}

namespace {

winograd::Geometry GeometryOf(const ConvParams& p, const Dims& out) {
  winograd::Geometry g{};
  static_cast<Conv2dSizes&>(g) = SizesOf(p, out);
  g.batch = p.input[0];
  g.tilesH = (g.outH + kOutTile - 1) / kOutTile;
  g.tilesW = (g.outW + kOutTile - 1) / kOutTile;
  g.tiles = g.batch * g.tilesH * g.tilesW;
  return g;
}

}  // namespace

bool WinogradConv::Chooses(const ConvParams& p, const Dims& out, bool constWeights, AlgorithmMode mode) {
  mode = WithEnvironment(mode, "SWITCHYARD_CPU_WINOGRAD");
  if (mode == AlgorithmMode::kNever || !Serves(p, out, constWeights)) return false;
  return mode == AlgorithmMode::kAlways || Preferred(GeometryOf(p, out));
}

std::unique_ptr<WinogradConv> WinogradConv::TryCreate(const ConvParams& p, const Dims& out, const float* constWeights,
                                                      const float* constBias, AlgorithmMode mode) {
  if (!Chooses(p, out, constWeights != nullptr, mode)) return nullptr;
  const winograd::Geometry g = GeometryOf(p, out);
  std::unique_ptr<WinogradConv> conv(new WinogradConv(g, p.epilogue, p.hasBias));
  const int64_t c = g.inChannels, k = g.outChannels;
  conv->weights_.assign(static_cast<size_t>(kElements * c * k), 0.0f);
  for (int64_t ko = 0; ko < k; ++ko) {
    const int64_t panel = ko / kPanel, lane = ko % kPanel;
    const int64_t width = std::min<int64_t>(kPanel, k - panel * kPanel);
    for (int64_t ci = 0; ci < c; ++ci) {
      const float* filter = constWeights + (ko * c + ci) * 9;
      double half[kInTile][3];  // G g
      for (int a = 0; a < kInTile; ++a)
        for (int j = 0; j < 3; ++j) {
          double s = 0;
          for (int i = 0; i < 3; ++i) s += kG[a][i] * filter[i * 3 + j];
          half[a][j] = s;
        }
      for (int a = 0; a < kInTile; ++a)
        for (int b = 0; b < kInTile; ++b) {
          double s = 0;
          for (int j = 0; j < 3; ++j) s += half[a][j] * kG[b][j];
          const int64_t e = a * kInTile + b;
          conv->weights_[e * c * k + panel * kPanel * c + ci * width + lane] = static_cast<float>(s);
        }
    }
  }
  if (p.hasBias && constBias) conv->bias_.assign(constBias, constBias + k);
  return conv;
}

void WinogradConv::Execute(const float* src, const float* bias, const float* sum, float* dst) const {
  const winograd::Geometry& g = geometry_;
  if (hasBias_ && bias_.empty() && !bias) throw CodedError("INVALID_ARGUMENT", "Conv: bias was not packed at construction and none was given");
  if (epilogue_.sum && !sum) throw CodedError("INVALID_ARGUMENT", "Conv: the epilogue sums Z but none was given");
  const winograd::OutputEpilogue epilogue{hasBias_ ? (bias_.empty() ? bias : bias_.data()) : nullptr,
                                          epilogue_.sum ? sum : nullptr, epilogue_.activation, epilogue_.alpha, epilogue_.beta};
  // Each stage runs over whole images (V and M are image-sized). Processing blocks of tiles end to
  // end instead, to keep V and M in cache, measured slower on ResNet-50: every block re-reads all
  // the weights, and 12-row products amortise each weight load over too few rows. A batch goes in
  // groups of images whose V and M stay within a few MiB (bounding the buffers, and a little faster
  // on ResNet-50 b8, within noise); small images (large weights, read once per group) all at once.
  const int64_t perImage = kElements * g.tilesH * g.tilesW * (g.inChannels + g.outChannels) * 4;
  const int64_t group = std::max<int64_t>(1, std::min<int64_t>(g.batch, kGroupBytes / perImage));
  const int64_t srcImage = g.inChannels * g.inH * g.inW, dstImage = g.outChannels * g.outH * g.outW;
  for (int64_t n0 = 0; n0 < g.batch; n0 += group) {
    winograd::Geometry part = g;
    part.batch = std::min(group, g.batch - n0);
    part.tiles = part.batch * g.tilesH * g.tilesW;
    winograd::OutputEpilogue e = epilogue;
    if (e.sum) e.sum += n0 * dstImage;
    RunImages(part, src + n0 * srcImage, e, dst + n0 * dstImage);
  }
}

void WinogradConv::RunImages(const winograd::Geometry& g, const float* src, const winograd::OutputEpilogue& epilogue, float* dst) const {
  const int64_t c = g.inChannels, k = g.outChannels, panels = (k + kPanel - 1) / kPanel;
  float* v = ThreadBuffer(0, static_cast<size_t>(kElements * g.tiles * c));
  float* m = ThreadBuffer(1, static_cast<size_t>(kElements * g.tiles * k));
  const float* u = weights_.data();
  const int64_t rows = g.batch * g.tilesH;  // rows of tiles: the transforms' unit of work
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) winograd::InputTransform(g, src, r * g.tilesW, g.tilesW, v + r * g.tilesW * c, g.tiles * c);
    // Consecutive items share an element's V, so a static split keeps it in each thread's cache.
#pragma omp for schedule(static)
    for (int64_t item = 0; item < kElements * panels; ++item) {
      const int64_t e = item / panels;
      winograd::Gemm(g, v + e * g.tiles * c, g.tiles, u + e * c * k, item % panels, m + e * g.tiles * k);
    }
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      winograd::OutputTransform(g, m + r * g.tilesW * k, r * g.tilesW, g.tilesW, g.tiles * k, epilogue, dst);
    }
  }
}

}  // namespace switchyard
