#include "lstm_avx512.h"

#include <immintrin.h>

#include <cstring>

#include "lstm_kernel.h"
#include "lstm_math.h"
#include "vector_isa.h"

namespace switchyard::lstm512 {

namespace {

constexpr int64_t kU = kLstmBlockUnits;
constexpr int64_t kBlock = 4 * kU;
static_assert(kBlock == 64, "a block is four 16-float registers");

// out[r] = init[r] + x[r] · m for kRows rows and one 64-output block: every weight register loaded
// serves all kRows rows. `ldInit` 0 gives every row the same init (a bias).
template <int kRows>
inline void Rows(const float* init, int64_t ldInit, const float* m, const float* x, int64_t ldx, int64_t K, float* out, int64_t ldo) {
  __m512 acc[kRows][4];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_loadu_ps(init + r * ldInit + 16 * j);
  }
  for (int64_t k = 0; k < K; ++k, m += kBlock) {
    const __m512 w0 = _mm512_loadu_ps(m), w1 = _mm512_loadu_ps(m + 16), w2 = _mm512_loadu_ps(m + 32), w3 = _mm512_loadu_ps(m + 48);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m512 v = _mm512_set1_ps(x[r * ldx + k]);
      acc[r][0] = _mm512_fmadd_ps(w0, v, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(w1, v, acc[r][1]);
      acc[r][2] = _mm512_fmadd_ps(w2, v, acc[r][2]);
      acc[r][3] = _mm512_fmadd_ps(w3, v, acc[r][3]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(out + r * ldo + 16 * j, acc[r][j]);
  }
}

}  // namespace

bool Usable() { return std::strcmp(VectorLoops().isa, "avx512") == 0; }

void Project(const float* bias, const float* m, const float* x, int64_t rows, int64_t K, float* out, int64_t ldo) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) Rows<4>(bias, 0, m, x + r * K, K, K, out + r * ldo, ldo);
  for (; r < rows; ++r) Rows<1>(bias, 0, m, x + r * K, K, K, out + r * ldo, ldo);
}

void Step(const float* xw, const float* r, const float* h, int64_t H, float* c, float* hOut, float clip) {
  alignas(64) float gates[kBlock];
  Rows<1>(xw, 0, r, h, 0, H, gates, kBlock);
  lstm_math::CellUpdate16(gates, c, hOut, clip);
}

void Step4(const float* xw, int64_t ldxw, const float* r, const float* h, int64_t ldh, int64_t H, float* c, float* hOut, int64_t ldState,
           float clip) {
  alignas(64) float gates[4 * kBlock];
  Rows<4>(xw, ldxw, r, h, ldh, H, gates, kBlock);
  for (int row = 0; row < 4; ++row) lstm_math::CellUpdate16(gates + row * kBlock, c + row * ldState, hOut + row * ldState, clip);
}

}  // namespace switchyard::lstm512
