// The LSTM cell's activations without libm calls, so gate loops vectorize: scalar (any CPU) and
// 8-lane AVX2 versions of exp, sigmoid and tanh. exp(x) = 2^n · e^r with n = round(x·log2 e),
// |r| <= ln2/2, and Cephes' degree-6 polynomial for e^r (relative error ~1e-7, like expf).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace switchyard {
namespace lstm_math {

inline float FastExp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;               // x - n·ln2, in two parts
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float Sigmoid(float v) { return 1.0f / (1.0f + FastExp(-v)); }
inline float Tanh(float v) { return 2.0f / (1.0f + FastExp(-2.0f * v)) - 1.0f; }
inline float Clip(float v, float clip) { return std::min(std::max(v, -clip), clip); }

__attribute__((target("avx2,fma"))) inline __m256 Exp8(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

__attribute__((target("avx2,fma"))) inline __m256 Sigmoid8(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, Exp8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
}

__attribute__((target("avx2,fma"))) inline __m256 Tanh8(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  return _mm256_sub_ps(_mm256_div_ps(two, _mm256_add_ps(one, Exp8(_mm256_mul_ps(_mm256_set1_ps(-2.0f), v)))), one);
}

// Eight gate pre-activations clipped to [lo, hi].
__attribute__((target("avx2,fma"))) inline __m256 ClippedGate8(const float* g, __m256 lo, __m256 hi) {
  return _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(g), lo), hi);
}

// One batch row's 16 units from their 64 gate pre-activations `g` ([i | o | f | c̃], 16 each; the gates
// clipped to ±clip): c ← f·c + i·c̃ in place, hOut ← o·tanh(c).
__attribute__((target("avx2,fma"))) inline void CellUpdate16(const float* g, float* c, float* hOut, float clip) {
  const __m256 hi = _mm256_set1_ps(clip), lo = _mm256_set1_ps(-clip);
  for (int half = 0; half < 2; ++half) {
    const __m256 ig = Sigmoid8(ClippedGate8(g + 8 * half, lo, hi));
    const __m256 og = Sigmoid8(ClippedGate8(g + 16 + 8 * half, lo, hi));
    const __m256 fg = Sigmoid8(ClippedGate8(g + 32 + 8 * half, lo, hi));
    const __m256 cand = Tanh8(ClippedGate8(g + 48 + 8 * half, lo, hi));
    const __m256 cv = _mm256_fmadd_ps(fg, _mm256_loadu_ps(c + 8 * half), _mm256_mul_ps(ig, cand));
    _mm256_storeu_ps(c + 8 * half, cv);
    _mm256_storeu_ps(hOut + 8 * half, _mm256_mul_ps(og, Tanh8(cv)));
  }
}

}  // namespace lstm_math
}  // namespace switchyard
