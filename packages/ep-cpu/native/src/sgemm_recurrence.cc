#include "sgemm_recurrence.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <switchyard/errors.h>
#include "engine.h"
#include "lstm_math.h"
#include "skinny_gemm.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

// Row-major C[M, N] = A[M, K] · B[N, K]ᵀ + beta · C (B as ONNX stores W and R: one row per output).
void GemmNT(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (M == 0 || N == 0) return;
  const dnnl_status_t status = dnnl_sgemm('N', 'T', M, N, K, 1.0f, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) throw CodedError("RUNTIME", "GRU: oneDNN sgemm failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

// One step's h·Rᵀ for rows [0, n) of R (each `k` long) into y (row stride ldy). A batch of at most
// SkinnyGemm::kMaxRows rows is a few dot products per R row: oneDNN's sgemm packs R again on every call and
// forks its team for ~50K multiply-adds, which cost more than the product (a 2-layer bidirectional GRU,
// hidden 128, 50 steps: 1.2 ms against onnxruntime's 0.64 on 2 threads). So R is packed once per
// direction and run into a per-thread skinny kernel (repacked every run: R may be a graph input) and
// each step streams it. `slot` keeps the packings of one run apart (direction, and the GRU candidate's rows).
// The packings stay with the thread between runs, so only R of up to kMaxPackedFloats (hidden 512 for a
// GRU's gates) takes this path: a larger one makes each step's product large enough for sgemm's overhead
// not to matter, and would hold tens of MiB per thread.
class StepProduct {
 public:
  StepProduct(int slot, int64_t batch, int64_t n, int64_t k, const float* r, int threads) : batch_(batch), n_(n), k_(k), r_(r) {
    if (batch <= 0 || batch > SkinnyGemm::kMaxRows || n <= 0 || k <= 0 || n * k > kMaxPackedFloats) return;
    thread_local std::unique_ptr<SkinnyGemm> packed[kSlots];
    std::unique_ptr<SkinnyGemm>& p = packed[slot];
    if (p && p->k() == k && p->n() == n) p->Repack(r);
    else p = std::make_unique<SkinnyGemm>(k, n, /*transB=*/true, r, nullptr, threads);
    skinny_ = p.get();
  }

  // y[b, j] = Σ_u h[b, u] · r[j, u] for b < batch, j < n. The skinny kernel writes rows n apart.
  void Run(const float* h, float* y, int64_t ldy) const {
    if (skinny_) {
      skinny_->Execute(h, batch_, y);
    } else {
      GemmNT(batch_, n_, k_, h, k_, r_, k_, 0.0f, y, ldy);
    }
  }

  // The row stride Run writes with when asked for `ldy`.
  int64_t stride(int64_t ldy) const { return skinny_ ? n_ : ldy; }

  static constexpr int kSlots = 4;
  static constexpr int64_t kMaxPackedFloats = int64_t{1} << 20;

 private:
  int64_t batch_, n_, k_;
  const float* r_;
  const SkinnyGemm* skinny_ = nullptr;
};

}  // namespace

void GruForward(const RecurrenceParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y, float* yh) {
  const int64_t T = p.seq, N = p.batch, I = p.input, H = p.hidden, G = 3 * H;
  ThreadScope threads(p.threads);
  // Per-thread scratch, grown once: a run allocates nothing after the first.
  thread_local std::vector<float> scratch;
  const size_t need = static_cast<size_t>(T * N * G + 2 * N * H + N * G + N * H + H);
  if (scratch.size() < need) scratch.resize(need);
  float* xw = scratch.data();   // [T·N, 3H]: x·Wᵀ + Wb (+ Rb for z and r)
  float* h = xw + T * N * G;    // [N, H]
  float* hNext = h + N * H;     // [N, H]
  float* hr = hNext + N * H;    // [N, 3H]: h·Rᵀ (the candidate's third only with linear_before_reset)
  float* rh = hr + N * G;       // [N, H]: r ⊙ h (linear_before_reset 0)
  float* zeros = rh + N * H;    // [H]
  std::fill(zeros, zeros + H, 0.0f);
  const vec::Loops& loops = VectorLoops();
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
        for (int64_t j = 0; j < 2 * H; ++j) out[j] += wb[j] + rb[j];
        for (int64_t j = 2 * H; j < G; ++j) out[j] += wb[j];
      }
    }
    // The candidate's Rb (added to its h·Rhᵀ before r scales it with linear_before_reset): zeros without B.
    const float* rbh = rb ? rb + 2 * H : zeros;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t u = 0; u < H; ++u) h[n * H + u] = h0 ? h0[(d * N + n) * H + u] : 0.0f;
    }
    // z and r (and with linear_before_reset the candidate's h·Rhᵀ) from one product; without it, the
    // candidate's product reads r ⊙ h and comes second, into its own rows of hr.
    const StepProduct gates(2 * d, N, p.linearBeforeReset ? G : 2 * H, H, rd, p.threads);
    const StepProduct candidate(2 * d + 1, p.linearBeforeReset ? 0 : N, H, H, rd + 2 * H * H, p.threads);  // unused with it
    const int64_t ldg = gates.stride(G);  // hr's row stride for z and r (and the candidate with linear_before_reset)
    // The candidate's h·Rhᵀ: the last third of hr's rows of G, or (the skinny product wrote z and r in
    // rows of 2H) its own rows after them.
    float* hc = ldg == G ? hr + 2 * H : hr + N * ldg;
    const int64_t ldc = p.linearBeforeReset ? ldg : candidate.stride(G);
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = backwards ? T - 1 - step : step;
      const float* xt = xw + t * N * G;
      gates.Run(h, hr, G);
      if (!p.linearBeforeReset) {
        for (int64_t n = 0; n < N; ++n) loops.gruResetGate(xt + n * G + H, hr + n * ldg + H, h + n * H, H, rh + n * H);
        candidate.Run(rh, hc, G);
      }
      for (int64_t n = 0; n < N; ++n) {
        float* out = hNext + n * H;
        loops.gruUpdate(xt + n * G, hr + n * ldg, hc + n * ldc, rbh, h + n * H, H, p.linearBeforeReset, out);
        if (y) std::copy(out, out + H, y + ((t * p.dirs + d) * N + n) * H);
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
    const StepProduct product(d, N, H, H, r + d * H * H, p.threads);  // writes rows H apart either way
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = backwards ? T - 1 - step : step;
      product.Run(h, hNext, H);
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
