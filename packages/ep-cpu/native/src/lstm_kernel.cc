#include "lstm_kernel.h"

#include <immintrin.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "engine.h"
#include "errors.h"

namespace switchyard {

namespace {

// exp(x) without a libm call, so the gate loop below vectorizes: 2^n · e^r with n = round(x·log2 e),
// |r| <= ln2/2, and Cephes' degree-6 polynomial for e^r (relative error ~1e-7, like expf).
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

// One batch row of one step: gates from X·Wᵀ+b (gx) and H·Rᵀ (gh), c and h updated in place.
// The scalar version: CPUs without AVX2, and the tail of CellAvx2.
// `units` hidden units starting at the given pointers; the four gates lie `stride` apart.
void Cell(const float* gx, const float* gh, float* c, float* h, int64_t units, float clip, int64_t stride) {
  const int64_t H = stride;
  for (int64_t k = 0; k < units; ++k) {
    const float ig = Sigmoid(Clip(gx[k] + gh[k], clip));
    const float og = Sigmoid(Clip(gx[H + k] + gh[H + k], clip));
    const float fg = Sigmoid(Clip(gx[2 * H + k] + gh[2 * H + k], clip));
    const float cand = Tanh(Clip(gx[3 * H + k] + gh[3 * H + k], clip));
    const float cv = fg * c[k] + ig * cand;
    c[k] = cv;
    h[k] = og * Tanh(cv);
  }
}

// C[M×N] = A[M×K] · B[N×K]ᵀ + beta·C, row-major, through oneDNN's sgemm.
void GemmABt(int64_t M, int64_t N, int64_t K, const float* a, const float* b, float beta, float* c) {
  const dnnl::status s = dnnl::sgemm('N', 'T', M, N, K, 1.0f, a, K, b, K, beta, c, N);
  if (s != dnnl::status::success) throw CodedError("RUNTIME", "LSTM: oneDNN sgemm failed");
}

// out[g] = dot(h, R[g]) for every gate row g of R [G×K], one batch row at a time. The recurrence is a
// matrix-vector product per step at the usual batch sizes, where sgemm's fixed cost per call (a
// parallel region, packing) outweighs the arithmetic; these dots stay on the calling thread.
__attribute__((target("avx2,fma"))) void RowDotsAvx2(const float* h, const float* r, int64_t G, int64_t K, float* out) {
  for (int64_t g = 0; g < G; ++g) {
    const float* row = r + g * K;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= K; k += 16) {
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + k), _mm256_loadu_ps(h + k), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + k + 8), _mm256_loadu_ps(h + k + 8), a1);
    }
    const __m256 sum8 = _mm256_add_ps(a0, a1);
    __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(sum8), _mm256_extractf128_ps(sum8, 1));
    sum4 = _mm_add_ps(sum4, _mm_movehl_ps(sum4, sum4));
    sum4 = _mm_add_ss(sum4, _mm_shuffle_ps(sum4, sum4, 1));
    float acc = _mm_cvtss_f32(sum4);
    for (; k < K; ++k) acc += row[k] * h[k];
    out[g] = acc;
  }
}

void RowDotsScalar(const float* h, const float* r, int64_t G, int64_t K, float* out) {
  for (int64_t g = 0; g < G; ++g) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc += r[g * K + k] * h[k];
    out[g] = acc;
  }
}

bool HasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2;
}

// exp(x) for 8 lanes: the same range reduction and polynomial as FastExp.
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

// One gate's pre-activation for 8 units: X·Wᵀ+b plus H·Rᵀ, clipped.
__attribute__((target("avx2,fma"))) inline __m256 Gate8(const float* gx, const float* gh, int64_t offset, __m256 lo, __m256 hi) {
  const __m256 v = _mm256_add_ps(_mm256_loadu_ps(gx + offset), _mm256_loadu_ps(gh + offset));
  return _mm256_min_ps(_mm256_max_ps(v, lo), hi);
}

// Cell on 8 hidden units at a time (the scalar Cell finishes the tail): the gate math was half of
// a small LSTM's time when the compiler left it scalar.
__attribute__((target("avx2,fma"))) void CellAvx2(const float* gx, const float* gh, float* c, float* h, int64_t H, float clip) {
  const __m256 hi = _mm256_set1_ps(clip), lo = _mm256_set1_ps(-clip);
  int64_t k = 0;
  for (; k + 8 <= H; k += 8) {
    const __m256 ig = Sigmoid8(Gate8(gx, gh, k, lo, hi));
    const __m256 og = Sigmoid8(Gate8(gx, gh, H + k, lo, hi));
    const __m256 fg = Sigmoid8(Gate8(gx, gh, 2 * H + k, lo, hi));
    const __m256 cand = Tanh8(Gate8(gx, gh, 3 * H + k, lo, hi));
    const __m256 cv = _mm256_fmadd_ps(fg, _mm256_loadu_ps(c + k), _mm256_mul_ps(ig, cand));
    _mm256_storeu_ps(c + k, cv);
    _mm256_storeu_ps(h + k, _mm256_mul_ps(og, Tanh8(cv)));
  }
  if (k < H) Cell(gx + k, gh + k, c + k, h + k, H - k, clip, H);
}

// H·Rᵀ for one step: row dots for small batches, sgemm when the batch makes it a real product.
void RecurrentGates(int64_t N, int64_t G, int64_t H, const float* h, const float* r, float* out) {
  constexpr int64_t kMaxRowDotBatch = 4;
  if (N > kMaxRowDotBatch) return GemmABt(N, G, H, h, r, 0.0f, out);
  for (int64_t n = 0; n < N; ++n) (HasAvx2() ? RowDotsAvx2 : RowDotsScalar)(h + n * H, r, G, H, out + n * G);
}

}  // namespace

void LstmForward(const LstmParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, const float* c0,
                 float* y, float* yh, float* yc) {
  ThreadScope threads(p.threads);
  const int64_t H = p.hidden, G = 4 * H, N = p.batch, T = p.seq, I = p.input;
  const float clip = p.clip > 0 ? p.clip : std::numeric_limits<float>::infinity();
  std::vector<float> xw(static_cast<size_t>(T * N * G)), hr(static_cast<size_t>(N * G));
  std::vector<float> h(static_cast<size_t>(N * H)), c(static_cast<size_t>(N * H));
  for (int d = 0; d < p.dirs; ++d) {
    const bool reverse = p.reverse || d == 1;
    // X·Wᵀ for every step at once, then both biases added per row.
    GemmABt(T * N, G, I, x, w + d * G * I, 0.0f, xw.data());
    if (b) {
      const float* wb = b + d * 2 * G;
      const float* rb = wb + G;
      for (int64_t row = 0; row < T * N; ++row) {
        float* dst = xw.data() + row * G;
        for (int64_t k = 0; k < G; ++k) dst[k] += wb[k] + rb[k];
      }
    }
    for (int64_t i = 0; i < N * H; ++i) {
      h[i] = h0 ? h0[d * N * H + i] : 0.0f;
      c[i] = c0 ? c0[d * N * H + i] : 0.0f;
    }
    const float* rd = r + d * G * H;
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = reverse ? T - 1 - step : step;
      RecurrentGates(N, G, H, h.data(), rd, hr.data());
      for (int64_t n = 0; n < N; ++n) {
        const float* gx = xw.data() + (t * N + n) * G;
        const float* gh = hr.data() + n * G;
        float* hn = h.data() + n * H;
        if (HasAvx2()) {
          CellAvx2(gx, gh, c.data() + n * H, hn, H, clip);
        } else {
          Cell(gx, gh, c.data() + n * H, hn, H, clip, H);
        }
        if (y) std::copy(hn, hn + H, y + ((t * p.dirs + d) * N + n) * H);
      }
    }
    if (yh) std::copy(h.begin(), h.end(), yh + d * N * H);
    if (yc) std::copy(c.begin(), c.end(), yc + d * N * H);
  }
}

}  // namespace switchyard
