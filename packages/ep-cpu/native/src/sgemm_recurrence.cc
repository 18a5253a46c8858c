#include "sgemm_recurrence.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <string>
#include <vector>

#include <switchyard/errors.h>
#include "engine.h"
#include "lstm_math.h"

namespace switchyard {

namespace {

// Row-major C[M, N] = A[M, K] · B[N, K]ᵀ + beta · C (B as ONNX stores W and R: one row per output).
void GemmNT(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (M == 0 || N == 0) return;
  const dnnl_status_t status = dnnl_sgemm('N', 'T', M, N, K, 1.0f, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) throw CodedError("RUNTIME", "GRU: oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

}  // namespace

void GruForward(const RecurrenceParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y, float* yh) {
  using lstm_math::Sigmoid;
  using lstm_math::Tanh;
  const int64_t T = p.seq, N = p.batch, I = p.input, H = p.hidden, G = 3 * H;
  ThreadScope threads(p.threads);
  // Per-thread scratch, grown once: a run allocates nothing after the first.
  thread_local std::vector<float> scratch;
  const size_t need = static_cast<size_t>(T * N * G + 2 * N * H + N * G + N * H);
  if (scratch.size() < need) scratch.resize(need);
  float* xw = scratch.data();   // [T·N, 3H]: x·Wᵀ + Wb (+ Rb for z and r)
  float* h = xw + T * N * G;    // [N, H]
  float* hNext = h + N * H;     // [N, H]
  float* hr = hNext + N * H;    // [N, 3H]: h·Rᵀ (the candidate's third only with linear_before_reset)
  float* rh = hr + N * G;       // [N, H]: r ⊙ h (linear_before_reset 0)
  for (int d = 0; d < p.dirs; ++d) {
    const float* wd = w + d * G * I;
    const float* rd = r + d * G * H;
    const float* wb = b ? b + d * 2 * G : nullptr;
    const float* rb = b ? wb + G : nullptr;
    const bool backwards = p.reverse || d == 1;
    GemmNT(T * N, G, I, x, I, wd, I, 0.0f, xw, G);
    if (b) {
      for (int64_t row = 0; row < T * N; ++row) {
        float* out = xw + row * G;
        for (int64_t j = 0; j < G; ++j) out[j] += wb[j] + (j < 2 * H ? rb[j] : 0.0f);
      }
    }
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t u = 0; u < H; ++u) h[n * H + u] = h0 ? h0[(d * N + n) * H + u] : 0.0f;
    }
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = backwards ? T - 1 - step : step;
      const float* xt = xw + t * N * G;
      // z and r (and with linear_before_reset the candidate's h·Rhᵀ) from one product.
      GemmNT(N, p.linearBeforeReset ? G : 2 * H, H, h, H, rd, H, 0.0f, hr, G);
      if (!p.linearBeforeReset) {
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t u = 0; u < H; ++u) rh[n * H + u] = Sigmoid(xt[n * G + H + u] + hr[n * G + H + u]) * h[n * H + u];
        }
        GemmNT(N, H, H, rh, H, rd + 2 * H * H, H, 0.0f, hr + 2 * H, G);
      }
      for (int64_t n = 0; n < N; ++n) {
        const float* xg = xt + n * G;
        const float* hg = hr + n * G;
        for (int64_t u = 0; u < H; ++u) {
          const float z = Sigmoid(xg[u] + hg[u]);
          const float rbh = rb ? rb[2 * H + u] : 0.0f;
          float candidate;
          if (p.linearBeforeReset) {
            const float rg = Sigmoid(xg[H + u] + hg[H + u]);
            candidate = Tanh(xg[2 * H + u] + rg * (hg[2 * H + u] + rbh));
          } else {
            candidate = Tanh(xg[2 * H + u] + hg[2 * H + u] + rbh);
          }
          const float hv = (1.0f - z) * candidate + z * h[n * H + u];
          hNext[n * H + u] = hv;
          if (y) y[((t * p.dirs + d) * N + n) * H + u] = hv;
        }
      }
      std::swap(h, hNext);
    }
    if (yh) std::copy(h, h + N * H, yh + d * N * H);
  }
}

void RnnForward(const RecurrenceParams& p, RnnActivation activation, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y,
                float* yh) {
  const int64_t T = p.seq, N = p.batch, I = p.input, H = p.hidden;
  ThreadScope threads(p.threads);
  thread_local std::vector<float> scratch;
  const size_t need = static_cast<size_t>(T * N * H + 2 * N * H);
  if (scratch.size() < need) scratch.resize(need);
  float* xw = scratch.data();  // [T·N, H]: x·Wᵀ + Wb + Rb
  float* h = xw + T * N * H;   // [N, H]
  float* hNext = h + N * H;    // [N, H]: h·Rᵀ, then the new h in place
  const auto f = [activation](float v) {
    switch (activation) {
      case RnnActivation::kRelu: return v > 0.0f ? v : 0.0f;
      case RnnActivation::kSigmoid: return lstm_math::Sigmoid(v);
      default: return lstm_math::Tanh(v);
    }
  };
  for (int d = 0; d < p.dirs; ++d) {
    const float* bd = b ? b + d * 2 * H : nullptr;
    const bool backwards = p.reverse || d == 1;
    GemmNT(T * N, H, I, x, I, w + d * H * I, I, 0.0f, xw, H);
    if (bd) {
      for (int64_t row = 0; row < T * N; ++row) {
        for (int64_t j = 0; j < H; ++j) xw[row * H + j] += bd[j] + bd[H + j];
      }
    }
    for (int64_t i = 0; i < N * H; ++i) h[i] = h0 ? h0[d * N * H + i] : 0.0f;
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = backwards ? T - 1 - step : step;
      GemmNT(N, H, H, h, H, r + d * H * H, H, 0.0f, hNext, H);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t u = 0; u < H; ++u) {
          const float hv = f(hNext[n * H + u] + xw[(t * N + n) * H + u]);
          hNext[n * H + u] = hv;
          if (y) y[((t * p.dirs + d) * N + n) * H + u] = hv;
        }
      }
      std::swap(h, hNext);
    }
    if (yh) std::copy(h, h + N * H, yh + d * N * H);
  }
}

}  // namespace switchyard
