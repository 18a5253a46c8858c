#include "lstm_kernel.h"

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
      GemmABt(N, G, H, h.data(), rd, 0.0f, hr.data());
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
