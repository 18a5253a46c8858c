// skinny_gemm.h's panel loop for AVX-512 F (built with -mavx512f); skinny_gemm.cc calls in only when the
// CPU has it. No precompiled header (CMakeLists.txt gives this file its own flags).
#include <immintrin.h>

#include <cstdint>

#include "skinny_gemm.h"

namespace switchyard {
namespace {

using Vec = __m512;
constexpr int kVecPerPanel = 1;
constexpr int kVecRegisters = 32;
inline Vec VecZero() { return _mm512_setzero_ps(); }
inline Vec VecAdd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec VecLoad(const float* p) { return _mm512_loadu_ps(p); }
inline Vec VecBroadcast(float x) { return _mm512_set1_ps(x); }
inline Vec VecFma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline void VecStore(float* p, Vec v) { _mm512_store_ps(p, v); }

#include "skinny_gemm_loops.inc"

}  // namespace

SkinnyPanelLoop SkinnyPanelsAvx512() { return &Panels; }

}  // namespace switchyard
