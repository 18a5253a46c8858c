// A product of a few rows by a constant matrix, y[m, N] = a[m, K] · B[K, N] (+ bias[N]), for m of at
// most kMaxRows: a batch-1 classifier's Linear layer, a decoder's layers at one token per sequence.
// Such products are a stream over B with a handful of multiply-adds per element, so they run at
// memory speed or not at all; oneDNN's matmul and 1x1 convolution spend more on blocking for reuse
// that is not there (a 1280 x 1000 classifier: 330 µs against 55 µs here, 2 threads, AVX-512).
//
// B is packed once into panels of 16 columns, each panel K rows of 16 contiguous floats (the last
// panel zero-padded), so each thread streams whole panels and keeps one accumulator row per row of a.
// Compiled three times (skinny_gemm_avx512.cc, skinny_gemm_avx2.cc, and the portable loop here); a
// kernel takes the build the addon's vector loops run when it is made (vector_isa.h: the best this CPU
// has, capped by SWITCHYARD_CPU_VECTOR_ISA or ONEDNN_MAX_CPU_ISA; vectorIsa(set) switches it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>


namespace switchyard {

constexpr int64_t kSkinnyPanel = 16;

// The columns of panels [p0, p1) for the `m` (1..4) rows of a: y[i, j] = bias[j] + Σ_k a[i, k] · B[k, j].
// `panels` holds panel p at p · K · 16; `bias` is padded to whole panels (zeros when the layer has none).
using SkinnyPanelLoop = void (*)(const float* a, int64_t m, int64_t k, const float* panels, const float* bias, int64_t n, int64_t p0,
                                 int64_t p1, float* y);

SkinnyPanelLoop SkinnyPanelsAvx512();
SkinnyPanelLoop SkinnyPanelsAvx2();

class SkinnyGemm {
 public:
  static constexpr int64_t kMaxRows = 4;

  // B as given: [N, K] when transB, else [K, N]; bias [N] or null. `threads` 0: the default team.
  SkinnyGemm(int64_t k, int64_t n, bool transB, const float* b, const float* bias, int threads);

  // y[m, N] for a[m, K], m in 1..kMaxRows.
  void Execute(const float* a, int64_t m, float* y) const;
  // Packs another B of the same dims and form in place of the current one (no allocation).
  void Repack(const float* b);
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // Writes B back as it was given ([N, K] when transB, else [K, N]) into `out`.
  void UnpackB(float* out) const;
  bool hasBias() const { return hasBias_; }
  std::string implementation() const;

 private:
  int64_t k_, n_, panelCount_;
  bool transB_, hasBias_;
  int threads_;
  const char* isa_;  // 'avx512' | 'avx2' | 'generic'
  SkinnyPanelLoop loop_;
  std::vector<float> panels_;
  std::vector<float> bias_;
};

}  // namespace switchyard
