#include "lstm_kernel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <vector>

#include "lstm_avx512.h"
#include "lstm_math.h"

namespace switchyard {

namespace {

using namespace lstm_math;

constexpr int64_t kU = kLstmBlockUnits;
constexpr int64_t kBlock = 4 * kU;  // outputs per block: i, o, f, c for kU units

// Below this many multiply-adds per step and thread, a second thread costs more at each step's
// barrier than it saves; the recurrence then stays on the calling thread.
constexpr int64_t kMinStepMacsPerThread = 16 * 1024;

// Where one direction's packed parts start. Per direction: W as [blocks][input][64], R as
// [blocks][H][64], then the summed bias as [blocks][64]; units past H (the last block's padding)
// have zero weights and bias.
struct PackedLayout {
  int64_t blocks, w, r, b, perDir;
  explicit PackedLayout(const LstmParams& p) {
    blocks = (p.hidden + kU - 1) / kU;
    w = 0;
    r = blocks * p.input * kBlock;
    b = r + blocks * p.hidden * kBlock;
    perDir = b + blocks * kBlock;
  }
};

bool HasAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2;
}

// The eight accumulators of one 64-output block, as named values: an array passed around made GCC
// store every accumulator back to the stack on each iteration.
struct Acc8 {
  __m256 a0, a1, a2, a3, a4, a5, a6, a7;
};

// init + Σ_k v[k] · m[k][0..64): one block of a matrix-vector product, m streamed contiguously.
__attribute__((target("avx2,fma"))) inline Acc8 Gemv64Avx2(const float* init, const float* m, const float* v, int64_t K) {
  __m256 a0 = _mm256_loadu_ps(init), a1 = _mm256_loadu_ps(init + 8), a2 = _mm256_loadu_ps(init + 16), a3 = _mm256_loadu_ps(init + 24);
  __m256 a4 = _mm256_loadu_ps(init + 32), a5 = _mm256_loadu_ps(init + 40), a6 = _mm256_loadu_ps(init + 48), a7 = _mm256_loadu_ps(init + 56);
  for (int64_t k = 0; k < K; ++k, m += kBlock) {
    const __m256 vk = _mm256_broadcast_ss(v + k);
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(m), vk, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 8), vk, a1);
    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 16), vk, a2);
    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 24), vk, a3);
    a4 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 32), vk, a4);
    a5 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 40), vk, a5);
    a6 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 48), vk, a6);
    a7 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 56), vk, a7);
  }
  return {a0, a1, a2, a3, a4, a5, a6, a7};
}

// out[r][0..16) = init[r] + x[r] · m for four rows r: 16 outputs (one cache line of each packed k row
// of m) against four rows of x, so every loaded weight serves four rows. `ldm` = m's k stride;
// `ldInit` = init's row stride (0: one bias row for all four).
__attribute__((target("avx2,fma"))) void Project4x16Avx2(const float* init, int64_t ldInit, const float* m, int64_t ldm, const float* x, int64_t K,
                                                         int64_t ldx, float* out, int64_t ldo) {
  __m256 a00 = _mm256_loadu_ps(init), a01 = _mm256_loadu_ps(init + 8);
  __m256 a10 = _mm256_loadu_ps(init + ldInit), a11 = _mm256_loadu_ps(init + ldInit + 8);
  __m256 a20 = _mm256_loadu_ps(init + 2 * ldInit), a21 = _mm256_loadu_ps(init + 2 * ldInit + 8);
  __m256 a30 = _mm256_loadu_ps(init + 3 * ldInit), a31 = _mm256_loadu_ps(init + 3 * ldInit + 8);
  for (int64_t k = 0; k < K; ++k, m += ldm) {
    const __m256 w0 = _mm256_loadu_ps(m), w1 = _mm256_loadu_ps(m + 8);
    __m256 v = _mm256_broadcast_ss(x + k);
    a00 = _mm256_fmadd_ps(w0, v, a00);
    a01 = _mm256_fmadd_ps(w1, v, a01);
    v = _mm256_broadcast_ss(x + ldx + k);
    a10 = _mm256_fmadd_ps(w0, v, a10);
    a11 = _mm256_fmadd_ps(w1, v, a11);
    v = _mm256_broadcast_ss(x + 2 * ldx + k);
    a20 = _mm256_fmadd_ps(w0, v, a20);
    a21 = _mm256_fmadd_ps(w1, v, a21);
    v = _mm256_broadcast_ss(x + 3 * ldx + k);
    a30 = _mm256_fmadd_ps(w0, v, a30);
    a31 = _mm256_fmadd_ps(w1, v, a31);
  }
  _mm256_storeu_ps(out, a00);
  _mm256_storeu_ps(out + 8, a01);
  _mm256_storeu_ps(out + ldo, a10);
  _mm256_storeu_ps(out + ldo + 8, a11);
  _mm256_storeu_ps(out + 2 * ldo, a20);
  _mm256_storeu_ps(out + 2 * ldo + 8, a21);
  _mm256_storeu_ps(out + 3 * ldo, a30);
  _mm256_storeu_ps(out + 3 * ldo + 8, a31);
}

// One row through a whole block (the rows left over after groups of four).
__attribute__((target("avx2,fma"))) void Project1x64Avx2(const float* bias, const float* m, const float* x, int64_t K, float* out) {
  const Acc8 acc = Gemv64Avx2(bias, m, x, K);
  const __m256 all[8] = {acc.a0, acc.a1, acc.a2, acc.a3, acc.a4, acc.a5, acc.a6, acc.a7};
  for (int j = 0; j < 8; ++j) _mm256_storeu_ps(out + 8 * j, all[j]);
}

// X·Wᵀ + b for rows [0, rows) of one block: groups of four rows per 16-output slice, the rest singly.
__attribute__((target("avx2,fma"))) void ProjectAvx2(const float* bias, const float* m, const float* x, int64_t rows, int64_t K, float* out,
                                                     int64_t ldo) {
  const int64_t grouped = rows / 4 * 4;
  for (int64_t s = 0; s < kBlock; s += 16) {
    for (int64_t r = 0; r < grouped; r += 4) Project4x16Avx2(bias + s, 0, m + s, kBlock, x + r * K, K, K, out + r * ldo + s, ldo);
  }
  for (int64_t r = grouped; r < rows; ++r) Project1x64Avx2(bias, m, x + r * K, K, out + r * ldo);
}

// One step for one block and batch row: gates = xw + h·Rᵀ, then c (in place) and the new h.
__attribute__((target("avx2,fma"))) void StepAvx2(const float* xw, const float* r, const float* h, int64_t H, float* c, float* hOut,
                                                  float clip) {
  const Acc8 acc = Gemv64Avx2(xw, r, h, H);
  const __m256 hi = _mm256_set1_ps(clip), lo = _mm256_set1_ps(-clip);
  __m256 g[8] = {acc.a0, acc.a1, acc.a2, acc.a3, acc.a4, acc.a5, acc.a6, acc.a7};
  for (int j = 0; j < 8; ++j) g[j] = _mm256_min_ps(_mm256_max_ps(g[j], lo), hi);
  for (int half = 0; half < 2; ++half) {
    const __m256 ig = Sigmoid8(g[half]);
    const __m256 og = Sigmoid8(g[2 + half]);
    const __m256 fg = Sigmoid8(g[4 + half]);
    const __m256 cand = Tanh8(g[6 + half]);
    const __m256 cv = _mm256_fmadd_ps(fg, _mm256_loadu_ps(c + 8 * half), _mm256_mul_ps(ig, cand));
    _mm256_storeu_ps(c + 8 * half, cv);
    _mm256_storeu_ps(hOut + 8 * half, _mm256_mul_ps(og, Tanh8(cv)));
  }
}

// Four batch rows through one block: the gates 16 outputs at a time against all four rows, so every
// weight of R loaded serves four rows (one row at a time streamed the block's R once per row: a batch
// of 4 read it four times a step), then each row's cell update.
__attribute__((target("avx2,fma"))) void Step4Avx2(const float* xw, int64_t ldxw, const float* r, const float* h, int64_t ldh, int64_t H,
                                                   float* c, float* hOut, int64_t ldState, float clip) {
  alignas(32) float gates[4 * kBlock];
  for (int64_t s = 0; s < kBlock; s += 16) Project4x16Avx2(xw + s, ldxw, r + s, kBlock, h, H, ldh, gates + s, kBlock);
  for (int row = 0; row < 4; ++row) lstm_math::CellUpdate16(gates + row * kBlock, c + row * ldState, hOut + row * ldState, clip);
}

void Gemv64Scalar(const float* init, const float* m, const float* v, int64_t K, float* acc) {
  std::copy(init, init + kBlock, acc);
  for (int64_t k = 0; k < K; ++k, m += kBlock) {
    for (int64_t j = 0; j < kBlock; ++j) acc[j] += m[j] * v[k];
  }
}

void ProjectScalar(const float* bias, const float* m, const float* x, int64_t rows, int64_t K, float* out, int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r) Gemv64Scalar(bias, m, x + r * K, K, out + r * ldo);
}

void StepScalar(const float* xw, const float* r, const float* h, int64_t H, float* c, float* hOut, float clip) {
  float acc[kBlock];
  Gemv64Scalar(xw, r, h, H, acc);
  for (int64_t u = 0; u < kU; ++u) {
    const float ig = Sigmoid(Clip(acc[u], clip));
    const float og = Sigmoid(Clip(acc[kU + u], clip));
    const float fg = Sigmoid(Clip(acc[2 * kU + u], clip));
    const float cand = Tanh(Clip(acc[3 * kU + u], clip));
    const float cv = fg * c[u] + ig * cand;
    c[u] = cv;
    hOut[u] = og * Tanh(cv);
  }
}

// A sense-reversing spin barrier for the team of one call. An OpenMP barrier per step cost about
// 1 us on the 2-core VM, as much as the step's arithmetic; this one is one shared counter.
class SpinBarrier {
 public:
  explicit SpinBarrier(int threads) : threads_(threads) {}
  void Wait() {
    const int generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    // Spin (the other thread is normally microseconds away); yield if it was descheduled.
    for (int spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < 20000) {
        _mm_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  const int threads_;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<int> generation_{0};
};

// What every thread of one forward call shares. h is double-buffered: a step reads all of the
// previous h while each thread writes its own blocks of the next.
struct Run {
  const LstmParams& p;
  PackedLayout layout;
  const float *x, *packed, *h0, *c0;
  float *y, *yh, *yc;
  float *xw, *h[2], *c;  // xw [seq·batch][blocks·64]; h, c [batch][blocks·16]
  float clip;
  bool avx2;
  bool avx512;  // lstm_avx512.h's products (implies avx2)
  SpinBarrier* barrier;  // null when one thread runs everything
};

// One thread's share: rows of the input projection, then its blocks of every step. `threads` > 1
// only inside an OpenMP team of that size.
void RunThread(const Run& run, int tid, int threads) {
  const LstmParams& p = run.p;
  const int64_t T = p.seq, N = p.batch, I = p.input, H = p.hidden, nb = run.layout.blocks, G = nb * kBlock, Hp = nb * kU;
  const auto project = run.avx512 ? lstm512::Project : run.avx2 ? ProjectAvx2 : ProjectScalar;
  const auto stepBlock = run.avx512 ? lstm512::Step : run.avx2 ? StepAvx2 : StepScalar;
  const auto step4 = run.avx512 ? lstm512::Step4 : Step4Avx2;
  const auto sync = [&run] {
    if (run.barrier) run.barrier->Wait();
  };
  const int64_t firstBlock = nb * tid / threads, endBlock = nb * (tid + 1) / threads;
  for (int d = 0; d < p.dirs; ++d) {
    const float* base = run.packed + d * run.layout.perDir;
    const float *wp = base + run.layout.w, *rp = base + run.layout.r, *bp = base + run.layout.b;
    const bool reverse = p.reverse || d == 1;
    // X·Wᵀ + b for every step at once, each thread its share of rows through every block (one
    // block of W, input × 64 floats, is what the inner loops keep in cache).
    const int64_t rows = T * N, firstRow = rows * tid / threads, endRow = rows * (tid + 1) / threads;
    for (int64_t blk = 0; blk < nb; ++blk) {
      project(bp + blk * kBlock, wp + blk * I * kBlock, run.x + firstRow * I, endRow - firstRow, I, run.xw + firstRow * G + blk * kBlock, G);
    }
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t u = firstBlock * kU; u < endBlock * kU; ++u) {
        const bool real = u < H;
        run.h[0][n * Hp + u] = real && run.h0 ? run.h0[(d * N + n) * H + u] : 0.0f;
        run.c[n * Hp + u] = real && run.c0 ? run.c0[(d * N + n) * H + u] : 0.0f;
      }
    }
    sync();
    int cur = 0;
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = reverse ? T - 1 - step : step;
      for (int64_t blk = firstBlock; blk < endBlock; ++blk) {
        const int64_t units = std::min(kU, H - blk * kU);
        int64_t n = 0;
        if (run.avx2) {
          for (; n + 4 <= N; n += 4) {
            step4(run.xw + (t * N + n) * G + blk * kBlock, G, rp + blk * H * kBlock, run.h[cur] + n * Hp, Hp, H, run.c + n * Hp + blk * kU,
                      run.h[cur ^ 1] + n * Hp + blk * kU, Hp, run.clip);
          }
        }
        for (int64_t rest = n; rest < N; ++rest) {
          stepBlock(run.xw + (t * N + rest) * G + blk * kBlock, rp + blk * H * kBlock, run.h[cur] + rest * Hp, H, run.c + rest * Hp + blk * kU,
                    run.h[cur ^ 1] + rest * Hp + blk * kU, run.clip);
        }
        if (run.y) {
          for (int64_t row = 0; row < N; ++row) {
            const float* hOut = run.h[cur ^ 1] + row * Hp + blk * kU;
            std::copy(hOut, hOut + units, run.y + ((t * p.dirs + d) * N + row) * H + blk * kU);
          }
        }
      }
      sync();
      cur ^= 1;
    }
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t blk = firstBlock; blk < endBlock; ++blk) {
        const int64_t units = std::min(kU, H - blk * kU), at = n * Hp + blk * kU, to = (d * N + n) * H + blk * kU;
        if (run.yh) std::copy(run.h[cur] + at, run.h[cur] + at + units, run.yh + to);
        if (run.yc) std::copy(run.c + at, run.c + at + units, run.yc + to);
      }
    }
    sync();  // the next direction reuses xw, h and c
  }
}

}  // namespace

int64_t LstmPackedSize(const LstmParams& p) { return p.dirs * PackedLayout(p).perDir; }

void LstmPack(const LstmParams& p, const float* w, const float* r, const float* b, float* packed) {
  const PackedLayout layout(p);
  const int64_t H = p.hidden, I = p.input;
  std::fill(packed, packed + LstmPackedSize(p), 0.0f);
  for (int d = 0; d < p.dirs; ++d) {
    float* base = packed + d * layout.perDir;
    const float *wd = w + d * 4 * H * I, *rd = r + d * 4 * H * H, *bd = b ? b + d * 8 * H : nullptr;
    for (int64_t g = 0; g < 4; ++g) {
      for (int64_t unit = 0; unit < H; ++unit) {
        const int64_t blk = unit / kU, col = g * kU + unit % kU, row = g * H + unit;  // row of the ONNX matrices
        for (int64_t k = 0; k < I; ++k) base[layout.w + (blk * I + k) * kBlock + col] = wd[row * I + k];
        for (int64_t k = 0; k < H; ++k) base[layout.r + (blk * H + k) * kBlock + col] = rd[row * H + k];
        if (bd) base[layout.b + blk * kBlock + col] = bd[row] + bd[4 * H + row];
      }
    }
  }
}

void LstmForwardPacked(const LstmParams& p, const float* x, const float* packed, const float* h0, const float* c0, float* y, float* yh,
                       float* yc) {
  const PackedLayout layout(p);
  const int64_t N = p.batch, rows = p.seq * N, nb = layout.blocks, Hp = nb * kU;
  // Per-thread scratch, grown once: a run allocates nothing.
  thread_local std::vector<float> scratch;
  const size_t need = static_cast<size_t>(rows * nb * kBlock + 3 * N * Hp);
  if (scratch.size() < need) scratch.resize(need);
  float* s = scratch.data();
  Run run{p, layout, x, packed, h0, c0, y, yh, yc, s, {s + rows * nb * kBlock, s + rows * nb * kBlock + N * Hp}, s + rows * nb * kBlock + 2 * N * Hp,
          p.clip > 0 ? p.clip : std::numeric_limits<float>::infinity(), HasAvx2(), HasAvx2() && lstm512::Usable(), nullptr};
  const int requested = p.threads > 0 ? p.threads : omp_get_max_threads();
  const int64_t stepMacs = N * nb * kBlock * p.hidden;
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({requested, nb, stepMacs / kMinStepMacsPerThread})));
  if (threads == 1) return RunThread(run, 0, 1);
#pragma omp parallel num_threads(threads)
  {
    // The team may be smaller than asked (nested parallelism, limits): split by its actual size.
#pragma omp single
    run.barrier = new SpinBarrier(omp_get_num_threads());
    RunThread(run, omp_get_thread_num(), omp_get_num_threads());
  }
  delete run.barrier;
}

void LstmForward(const LstmParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, const float* c0,
                 float* y, float* yh, float* yc) {
  thread_local std::vector<float> packed;
  packed.resize(static_cast<size_t>(LstmPackedSize(p)));
  LstmPack(p, w, r, b, packed.data());
  LstmForwardPacked(p, x, packed.data(), h0, c0, y, yh, yc);
}

}  // namespace switchyard
