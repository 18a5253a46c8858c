#include "blocked_max_pool.h"

#include <algorithm>

#include "engine.h"

namespace switchyard {

namespace {

// Four floats as one SIMD register (SSE on x86-64, NEON on arm64), loaded from 4-byte aligned memory.
typedef float Lanes4 __attribute__((vector_size(16), aligned(4)));

inline Lanes4 Max(Lanes4 a, Lanes4 b) { return a > b ? a : b; }

}  // namespace

std::unique_ptr<const BlockedMaxPool2d> BlockedMaxPool2d::TryCreate(const PoolParams& p, const Dims& outputDims) {
  if (p.kind != PoolKind::kMax || p.input.size() != 4 || (p.block != 8 && p.block != 16)) return nullptr;
  return std::unique_ptr<const BlockedMaxPool2d>(new BlockedMaxPool2d(p, outputDims));
}

void BlockedMaxPool2d::Execute(const float* src, float* dst) const {
  ThreadScope threads(params_.threads);
  if (params_.block == 8) Run<8>(src, dst);
  else Run<16>(src, dst);
}

template <int Block>
void BlockedMaxPool2d::Run(const float* src, float* dst) const {
  const PoolParams& p = params_;
  const int64_t blocks = p.input[0] * ((p.input[1] + Block - 1) / Block);  // (image, channel block) planes
  const int64_t ih = p.input[2], iw = p.input[3], oh = outputDims_[2], ow = outputDims_[3];
  const int64_t kh = p.kernel[0], kw = p.kernel[1], sh = p.strides[0], sw = p.strides[1];
  const int64_t ph = p.padsBegin[0], pw = p.padsBegin[1];
  const int64_t rows = blocks * oh;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t plane = r / oh, y = r % oh;
    const float* in = src + plane * ih * iw * Block;
    float* out = dst + (plane * oh + y) * ow * Block;
    // Rows of the window inside the input (padding rows are skipped: they never hold the maximum).
    const int64_t y0 = std::max<int64_t>(y * sh - ph, 0), y1 = std::min<int64_t>(y * sh - ph + kh, ih);
    constexpr int kVectors = Block / 4;
    for (int64_t x = 0; x < ow; ++x) {
      const int64_t x0 = std::max<int64_t>(x * sw - pw, 0), x1 = std::min<int64_t>(x * sw - pw + kw, iw);
      Lanes4 m[kVectors];
      const auto* first = reinterpret_cast<const Lanes4*>(in + (y0 * iw + x0) * Block);
      for (int v = 0; v < kVectors; ++v) m[v] = first[v];
      for (int64_t yy = y0; yy < y1; ++yy) {
        const float* row = in + yy * iw * Block;
        for (int64_t xx = x0; xx < x1; ++xx) {
          const auto* pixel = reinterpret_cast<const Lanes4*>(row + xx * Block);
          for (int v = 0; v < kVectors; ++v) m[v] = Max(pixel[v], m[v]);
        }
      }
      auto* target = reinterpret_cast<Lanes4*>(out + x * Block);
      for (int v = 0; v < kVectors; ++v) target[v] = m[v];
    }
  }
}

}  // namespace switchyard
