#include "blocked_max_pool.h"

#include <algorithm>

#include "engine.h"
#include "vector_isa.h"

namespace switchyard {

std::unique_ptr<const BlockedMaxPool2d> BlockedMaxPool2d::TryCreate(const PoolParams& p, const Dims& outputDims) {
  if (p.kind != PoolKind::kMax || p.input.size() != 4 || (p.block != 8 && p.block != 16)) return nullptr;
  return std::unique_ptr<const BlockedMaxPool2d>(new BlockedMaxPool2d(p, outputDims));
}

void BlockedMaxPool2d::Execute(const float* src, float* dst) const {
  ThreadScope threads(params_.threads);
  Run(src, dst);
}

void BlockedMaxPool2d::Run(const float* src, float* dst) const {
  const PoolParams& p = params_;
  const int block = static_cast<int>(p.block);
  const int64_t blocks = p.input[0] * ((p.input[1] + block - 1) / block);  // (image, channel block) planes
  const int64_t ih = p.input[2], iw = p.input[3], oh = outputDims_[2], ow = outputDims_[3];
  const int64_t kh = p.kernel[0], kw = p.kernel[1], sh = p.strides[0], sw = p.strides[1];
  const int64_t ph = p.padsBegin[0], pw = p.padsBegin[1];
  const int64_t rows = blocks * oh;
  const auto row_loop = VectorLoops().blockedMaxRow;  // a pixel's block as one vector of the CPU's width
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t plane = r / oh, y = r % oh;
    // Rows of the window inside the input (padding rows are skipped: they never hold the maximum).
    const int64_t y0 = std::max<int64_t>(y * sh - ph, 0), y1 = std::min<int64_t>(y * sh - ph + kh, ih);
    row_loop(src + plane * ih * iw * block, iw, block, y0, y1, ow, kw, sw, pw, dst + (plane * oh + y) * ow * block);
  }
}

}  // namespace switchyard
