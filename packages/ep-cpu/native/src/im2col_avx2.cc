#include "im2col_avx2.h"

#include <immintrin.h>

#include "avx2_epilogue.h"

namespace switchyard::im2col {

void GatherRows(const Geometry& g, const float* src, int64_t first, int64_t count, float* rows) {
  const int64_t blocks = g.inChannels / kBlock, taps = g.kernelH * g.kernelW, plane = g.inH * g.inW * kBlock;
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t pixel = first + i, oh = pixel / g.outW, ow = pixel % g.outW;
    const int64_t ih0 = oh * g.strideH - g.padTop, iw0 = ow * g.strideW - g.padLeft;
    float* row = rows + i * g.depth();
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const float* channels = src + cb * plane;
      float* out = row + cb * taps * kBlock;
      for (int64_t kh = 0; kh < g.kernelH; ++kh) {
        const int64_t ih = ih0 + kh * g.dilationH;
        const bool rowInside = ih >= 0 && ih < g.inH;
        for (int64_t kw = 0; kw < g.kernelW; ++kw, out += kBlock) {
          const int64_t iw = iw0 + kw * g.dilationW;
          const bool inside = rowInside && iw >= 0 && iw < g.inW;
          _mm256_storeu_ps(out, inside ? _mm256_loadu_ps(channels + (ih * g.inW + iw) * kBlock) : zero);
        }
      }
    }
  }
}

void ScatterOutput(const Geometry& g, const float* c, int64_t firstBlock, int64_t blocks, const winograd::OutputEpilogue& e,
                   float* dst) {
  const int64_t pixels = g.pixels();
  for (int64_t kb = firstBlock; kb < firstBlock + blocks; ++kb) {
    const __m256 bias = e.bias ? _mm256_loadu_ps(e.bias + kb * kBlock) : _mm256_setzero_ps();
    const float* in = c + kb * kBlock;
    const int64_t planeOffset = kb * pixels * kBlock;
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t offset = planeOffset + p * kBlock;
      __m256 value = _mm256_add_ps(_mm256_loadu_ps(in + p * g.outChannels), bias);
      if (e.sum) value = _mm256_add_ps(value, _mm256_loadu_ps(e.sum + offset));
      _mm256_storeu_ps(dst + offset, ActivateAvx2(value, e.activation, e.alpha, e.beta));
    }
  }
}

}  // namespace switchyard::im2col
