#include "skinny_gemm.h"

#include <algorithm>
#include <cstring>

#include "engine.h"
#include "parallel.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

// The portable panel loop (the x86-64 baseline): one column at a time, for CPUs without AVX2.
void PanelsGeneric(const float* a, int64_t m, int64_t k, const float* panels, const float* bias, int64_t n, int64_t p0, int64_t p1, float* y) {
  for (int64_t p = p0; p < p1; ++p) {
    const float* w = panels + p * k * kSkinnyPanel;
    const int64_t cols = std::min<int64_t>(kSkinnyPanel, n - p * kSkinnyPanel);
    for (int64_t i = 0; i < m; ++i) {
      float acc[kSkinnyPanel];
      for (int64_t j = 0; j < kSkinnyPanel; ++j) acc[j] = bias[p * kSkinnyPanel + j];
      for (int64_t kk = 0; kk < k; ++kk) {
        const float x = a[i * k + kk];
        for (int64_t j = 0; j < kSkinnyPanel; ++j) acc[j] += x * w[kk * kSkinnyPanel + j];
      }
      std::copy(acc, acc + cols, y + i * n + p * kSkinnyPanel);
    }
  }
}

SkinnyPanelLoop LoopFor(const char* isa) {
  if (std::strcmp(isa, "avx512") == 0) return SkinnyPanelsAvx512();
  if (std::strcmp(isa, "avx2") == 0) return SkinnyPanelsAvx2();
  return &PanelsGeneric;
}

}  // namespace

SkinnyGemm::SkinnyGemm(int64_t k, int64_t n, bool transB, const float* b, const float* bias, int threads)
    : k_(k), n_(n), panelCount_((n + kSkinnyPanel - 1) / kSkinnyPanel), transB_(transB), hasBias_(bias != nullptr), threads_(threads),
      isa_(VectorLoops().isa), loop_(LoopFor(isa_)) {
  panels_.assign(static_cast<size_t>(panelCount_ * k_ * kSkinnyPanel), 0.0f);
  Repack(b);
  bias_.assign(static_cast<size_t>(panelCount_ * kSkinnyPanel), 0.0f);
  if (bias) std::copy(bias, bias + n_, bias_.begin());
}

void SkinnyGemm::Repack(const float* b) {
  // The last panel's padding columns stay zero from the constructor.
  for (int64_t j = 0; j < n_; ++j) {
    float* column = panels_.data() + (j / kSkinnyPanel) * k_ * kSkinnyPanel + j % kSkinnyPanel;
    for (int64_t kk = 0; kk < k_; ++kk) column[kk * kSkinnyPanel] = transB_ ? b[j * k_ + kk] : b[kk * n_ + j];
  }
}

void SkinnyGemm::Execute(const float* a, int64_t m, float* y) const {
  const SkinnyPanelLoop loop = loop_;
  ThreadScope threads(threads_);
  // Whole panels per thread, each a stream of K·64 bytes: ParallelRanges keeps small products on one.
  const int64_t panelBytes = k_ * kSkinnyPanel * static_cast<int64_t>(sizeof(float));
  ParallelRanges(panelCount_, GrainFor(panelBytes), [&](int64_t p0, int64_t p1) {
    for (int64_t row = 0; row < m; row += kMaxRows) {
      const int64_t rows = std::min(kMaxRows, m - row);
      loop(a + row * k_, rows, k_, panels_.data(), bias_.data(), n_, p0, p1, y + row * n_);
    }
  });
}

void SkinnyGemm::UnpackB(float* out) const {
  for (int64_t j = 0; j < n_; ++j) {
    const float* column = panels_.data() + (j / kSkinnyPanel) * k_ * kSkinnyPanel + j % kSkinnyPanel;
    for (int64_t kk = 0; kk < k_; ++kk) (transB_ ? out[j * k_ + kk] : out[kk * n_ + j]) = column[kk * kSkinnyPanel];
  }
}

std::string SkinnyGemm::implementation() const { return std::string("switchyard:skinny_gemm:") + isa_; }

}  // namespace switchyard
