// skinny_gemm.h's panel loop for AVX2 + FMA (two 8-float vectors per 16-column panel); skinny_gemm.cc
// calls in only when the CPU has them. No precompiled header (CMakeLists.txt gives this file its flags).
#include <immintrin.h>

#include <cstdint>

#include "skinny_gemm.h"

namespace switchyard {
namespace {

using Vec = __m256;
constexpr int kVecPerPanel = 2;
constexpr int kVecRegisters = 16;
inline Vec VecZero() { return _mm256_setzero_ps(); }
inline Vec VecAdd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec VecLoad(const float* p) { return _mm256_loadu_ps(p); }
inline Vec VecBroadcast(float x) { return _mm256_set1_ps(x); }
inline Vec VecFma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline void VecStore(float* p, Vec v) { _mm256_store_ps(p, v); }

#include "skinny_gemm_loops.inc"

}  // namespace

SkinnyPanelLoop SkinnyPanelsAvx2() { return &Panels; }

}  // namespace switchyard
