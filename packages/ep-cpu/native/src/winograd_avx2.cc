// AVX2+FMA stages of the Winograd F(4x4, 3x3) convolution (see winograd_avx2.h). Every vector holds
// the 8 channels of one nChw8c block, so the transforms need no shuffles.
#include "winograd_avx2.h"

#include <immintrin.h>

#include <algorithm>

#include "avx2_epilogue.h"

namespace switchyard::winograd {

namespace {

// Bᵀ applied to 6 points (rows of Bᵀ):
//   [4  0 -5  0  1  0]   [0 -4 -4  1  1  0]   [0  4 -4 -1  1  0]
//   [0 -2 -1  2  1  0]   [0  2 -1 -2  1  0]   [0  4  0 -5  0  1]
inline void InputTransform1D(const __m256 d[6], __m256 t[6]) {
  const __m256 four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f), two = _mm256_set1_ps(2.0f);
  const __m256 a = _mm256_fnmadd_ps(four, d[2], d[4]);  // d4 - 4 d2
  const __m256 b = _mm256_fnmadd_ps(four, d[1], d[3]);  // d3 - 4 d1
  const __m256 c = _mm256_sub_ps(d[4], d[2]);            // d4 - d2
  const __m256 e = _mm256_mul_ps(two, _mm256_sub_ps(d[3], d[1]));  // 2 (d3 - d1)
  t[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  t[1] = _mm256_add_ps(a, b);
  t[2] = _mm256_sub_ps(a, b);
  t[3] = _mm256_add_ps(c, e);
  t[4] = _mm256_sub_ps(c, e);
  t[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// Aᵀ applied to 6 points:
//   [1 1  1 1  1 0]   [0 1 -1 2 -2 0]   [0 1 1 4 4 0]   [0 1 -1 8 -8 1]
inline void OutputTransform1D(const __m256 m[6], __m256 y[4]) {
  const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
  y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), d34, d12);
  y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), s34, s12);
  y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), d34, d12), m[5]);
}

// One tile of one channel block: 36 input vectors → 36 transformed vectors, element e stored at
// v + e·elementStride.
inline void TransformTile(const __m256 d[36], float* v, int64_t elementStride) {
  __m256 rows[36];  // rows[i·6 + b]: row i transformed along w
  for (int i = 0; i < 6; ++i) InputTransform1D(d + i * 6, rows + i * 6);
  for (int b = 0; b < 6; ++b) {
    __m256 col[6], out[6];
    for (int i = 0; i < 6; ++i) col[i] = rows[i * 6 + b];
    InputTransform1D(col, out);
    for (int a = 0; a < 6; ++a) _mm256_storeu_ps(v + (a * 6 + b) * elementStride, out[a]);
  }
}

// A register-tiled R x (NV·8) block of C = A·B: A rows `lda` apart, B a packed panel (NV·8 floats per k).
// Accumulators are named variables, not an array: GCC kept an array's elements in registers but also
// stored them to the stack on every iteration.
#define SWITCHYARD_WINO_ROW(r)                                                      \
  if constexpr (R > r) {                                                            \
    const __m256 av = _mm256_broadcast_ss(a + r * lda + k);                         \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                     \
    if constexpr (NV > 1) c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);               \
  }
#define SWITCHYARD_WINO_STORE(r)                                                    \
  if constexpr (R > r) {                                                            \
    _mm256_storeu_ps(c + r * ldc, c##r##0);                                         \
    if constexpr (NV > 1) _mm256_storeu_ps(c + r * ldc + 8, c##r##1);               \
  }
constexpr int64_t kPrefetchSteps = 24;

// `prefetch` walks in step with `b`: see PanelRows.
template <int R, int NV>
inline void MicroKernel(const float* a, int64_t lda, const float* b, const float* prefetch, int64_t depth, float* c, int64_t ldc) {
  static_assert(R >= 1 && R <= 6 && (NV == 1 || NV == 2), "6 x 16 at most: 12 accumulators of 16 registers");
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t k = 0; k < depth; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(prefetch + k * NV * 8), _MM_HINT_T0);
    const __m256 b0 = _mm256_loadu_ps(b + k * NV * 8);
    const __m256 b1 = NV > 1 ? _mm256_loadu_ps(b + k * NV * 8 + 8) : b0;
    SWITCHYARD_WINO_ROW(0) SWITCHYARD_WINO_ROW(1) SWITCHYARD_WINO_ROW(2)
    SWITCHYARD_WINO_ROW(3) SWITCHYARD_WINO_ROW(4) SWITCHYARD_WINO_ROW(5)
  }
  SWITCHYARD_WINO_STORE(0) SWITCHYARD_WINO_STORE(1) SWITCHYARD_WINO_STORE(2)
  SWITCHYARD_WINO_STORE(3) SWITCHYARD_WINO_STORE(4) SWITCHYARD_WINO_STORE(5)
}
#undef SWITCHYARD_WINO_ROW
#undef SWITCHYARD_WINO_STORE

constexpr int kRows = 6;  // 6 rows x 16 columns: 12 accumulators, 2 B loads, 1 broadcast live

// The weights come from memory (4x the filter's bytes once transformed; no cache holds a whole
// model's), so the first pass over a panel prefetches a little ahead of itself, and the second pass,
// which reads the panel from cache, fetches the next panel (it follows in memory) meanwhile. With
// few rows (small images: few tiles, large weights) that keeps memory busy through every pass.
// ResNet-50, 1 thread, in the model: 14x14x256 1.6 ms with no prefetch, 1.4 ms ahead only, and with
// the next panel 1.3..1.5 ms against 1.8..2.0 ms ahead only on a busier machine; 7x7x512 2.4..2.9 vs 2.8..3.4.
template <int NV>
void PanelRows(const float* a, int64_t rows, int64_t lda, const float* b, int64_t depth, float* c, int64_t ldc) {
  const float* ahead = b + kPrefetchSteps * NV * 8;
  const float* next = b + depth * NV * 8;
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) MicroKernel<kRows, NV>(a + r * lda, lda, b, r == kRows ? next : ahead, depth, c + r * ldc, ldc);
  const float* prefetch = r == kRows ? next : ahead;
  switch (rows - r) {
    case 0: break;
    case 1: MicroKernel<1, NV>(a + r * lda, lda, b, prefetch, depth, c + r * ldc, ldc); break;
    case 2: MicroKernel<2, NV>(a + r * lda, lda, b, prefetch, depth, c + r * ldc, ldc); break;
    case 3: MicroKernel<3, NV>(a + r * lda, lda, b, prefetch, depth, c + r * ldc, ldc); break;
    case 4: MicroKernel<4, NV>(a + r * lda, lda, b, prefetch, depth, c + r * ldc, ldc); break;
    default: MicroKernel<5, NV>(a + r * lda, lda, b, prefetch, depth, c + r * ldc, ldc); break;
  }
}

inline __m256 Activate(__m256 x, const OutputEpilogue& e) { return ActivateAvx2(x, e.activation, e.alpha, e.beta); }

}  // namespace

namespace {

// The 6x6 input patch of one tile in one channel block, zeros outside the image.
inline void LoadPatch(const Geometry& g, const float* plane, int64_t ih0, int64_t iw0, __m256 d[36]) {
  if (ih0 >= 0 && ih0 + kInTile <= g.inH && iw0 >= 0 && iw0 + kInTile <= g.inW) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) d[i * 6 + j] = _mm256_loadu_ps(plane + ((ih0 + i) * g.inW + iw0 + j) * kBlock);
    return;
  }
  for (int i = 0; i < 6; ++i) {
    const int64_t ih = ih0 + i;
    for (int j = 0; j < 6; ++j) {
      const int64_t iw = iw0 + j;
      const bool inside = ih >= 0 && ih < g.inH && iw >= 0 && iw < g.inW;
      d[i * 6 + j] = inside ? _mm256_loadu_ps(plane + (ih * g.inW + iw) * kBlock) : _mm256_setzero_ps();
    }
  }
}

}  // namespace

void InputTransform(const Geometry& g, const float* src, int64_t first, int64_t count, float* v, int64_t elementStride) {
  const int64_t blocks = g.inChannels / kBlock;
  const int64_t perImage = g.tilesH * g.tilesW;
  for (int64_t cb = 0; cb < blocks; ++cb) {
    for (int64_t i = 0; i < count; ++i) {
      const int64_t tile = first + i, n = tile / perImage, th = tile % perImage / g.tilesW, tw = tile % g.tilesW;
      const float* plane = src + (n * blocks + cb) * g.inH * g.inW * kBlock;
      __m256 d[36];
      LoadPatch(g, plane, th * kOutTile - g.padTop, tw * kOutTile - g.padLeft, d);
      TransformTile(d, v + i * g.inChannels + cb * kBlock, elementStride);
    }
  }
}

void PackedGemm(const float* a, int64_t rows, int64_t depth, const float* packed, int64_t columns, int64_t panel, float* c) {
  const float* b = packed + panel * kPanel * depth;
  float* out = c + panel * kPanel;
  if (columns - panel * kPanel >= kPanel) PanelRows<2>(a, rows, depth, b, depth, out, columns);
  else PanelRows<1>(a, rows, depth, b, depth, out, columns);
}

void Gemm(const Geometry& g, const float* v, int64_t rows, const float* u, int64_t panel, float* m) {
  PackedGemm(v, rows, g.inChannels, u, g.outChannels, panel, m);
}

void OutputTransform(const Geometry& g, const float* m, int64_t first, int64_t count, int64_t elementStride,
                     const OutputEpilogue& e, float* dst) {
  const int64_t blocks = g.outChannels / kBlock;
  const int64_t perImage = g.tilesH * g.tilesW;
  for (int64_t kb = 0; kb < blocks; ++kb) {
    const __m256 bias = e.bias ? _mm256_loadu_ps(e.bias + kb * kBlock) : _mm256_setzero_ps();
    for (int64_t i = 0; i < count; ++i) {
      const int64_t tile = first + i, n = tile / perImage, th = tile % perImage / g.tilesW, tw = tile % g.tilesW;
      const int64_t planeOffset = (n * blocks + kb) * g.outH * g.outW * kBlock;
      const float* in = m + i * g.outChannels + kb * kBlock;
      __m256 half[6][4];  // half[a][q]: row a of M transformed along b
      for (int a = 0; a < 6; ++a) {
        __m256 row[6];
        for (int b = 0; b < 6; ++b) row[b] = _mm256_loadu_ps(in + (a * 6 + b) * elementStride);
        OutputTransform1D(row, half[a]);
      }
      const int64_t oh0 = th * kOutTile, ow0 = tw * kOutTile;
      const int rows = static_cast<int>(std::min<int64_t>(kOutTile, g.outH - oh0));
      const int cols = static_cast<int>(std::min<int64_t>(kOutTile, g.outW - ow0));
      for (int q = 0; q < cols; ++q) {
        __m256 col[6], y[4];
        for (int a = 0; a < 6; ++a) col[a] = half[a][q];
        OutputTransform1D(col, y);
        for (int p = 0; p < rows; ++p) {
          const int64_t offset = planeOffset + ((oh0 + p) * g.outW + ow0 + q) * kBlock;
          __m256 value = _mm256_add_ps(y[p], bias);
          if (e.sum) value = _mm256_add_ps(value, _mm256_loadu_ps(e.sum + offset));
          _mm256_storeu_ps(dst + offset, Activate(value, e));
        }
      }
    }
  }
}

}  // namespace switchyard::winograd
