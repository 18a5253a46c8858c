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
// Built for AVX2 and for the baseline ISA; the loader picks the one the CPU runs.
__attribute__((target_clones("avx2", "default"))) void Cell(const float* gx, const float* gh, float* c, float* h, int64_t H,
                                                           float clip) {
  for (int64_t k = 0; k < H; ++k) {
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

// H·Rᵀ for one step: row dots for small batches, sgemm when the batch makes it a real product.
void RecurrentGates(int64_t N, int64_t G, int64_t H, const float* h, const float* r, float* out) {
  constexpr int64_t kMaxRowDotBatch = 4;
  if (N > kMaxRowDotBatch) return GemmABt(N, G, H, h, r, 0.0f, out);
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  for (int64_t n = 0; n < N; ++n) (avx2 ? RowDotsAvx2 : RowDotsScalar)(h + n * H, r, G, H, out + n * G);
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
        Cell(gx, gh, c.data() + n * H, hn, H, clip);
        if (y) std::copy(hn, hn + H, y + ((t * p.dirs + d) * N + n) * H);
      }
    }
    if (yh) std::copy(h.begin(), h.end(), yh + d * N * H);
    if (yc) std::copy(c.begin(), c.end(), yc + d * N * H);
  }
}

}  // namespace switchyard
