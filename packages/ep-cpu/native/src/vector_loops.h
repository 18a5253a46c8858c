// The inner loops of the dtype-generic kernels (transposes, Cast, reductions, Softmax, normalizations),
// compiled once per instruction set (vector_loops_generic.cc / _avx2.cc / _avx512.cc, from the same
// vector_loops_*.inc sources) and picked at run time (vector_isa.h). Plain data in, plain data out: no V8,
// no allocation, no exceptions, so they run inside OpenMP regions.
#pragma once

#include <cstdint>

namespace switchyard::vec {

// The element types Cast converts between natively (bool is a byte of 0/1; float16/bfloat16 are bits).
enum class Dtype : int { kFloat32, kFloat64, kFloat16, kBfloat16, kInt8, kUint8, kInt16, kUint16, kInt32, kUint32, kInt64, kUint64, kBool, kCount };

// The accumulations the reductions are built from. Sums accumulate in double (as the TS kernels do).
enum class ReduceOp : int {
  kSum,           // Σ x
  kSumSquare,     // Σ x²
  kSumAbs,        // Σ |x|
  kSumExp,        // Σ exp(x − shift): LogSumExp's second pass
  kProd,          // Π x
  kMax,           // a NaN wins (ReduceMax)
  kMin,           // a NaN wins (ReduceMin)
  kMaxIgnoreNan,  // NaNs are skipped: LogSumExp's first pass
  kCount,
};

enum class SoftmaxKind : int { kSoftmax, kLogSoftmax, kHardmax };

// n elements of one type into another, with the TS kernels' rules (math/cast.ts).
using CastLoop = void (*)(const void* src, void* dst, int64_t n);

// dst[c * dstStride + r] = src[r * srcStride + c] for r < rows, c < cols (strides in elements).
using TransposeLoop = void (*)(const void* src, int64_t srcStride, void* dst, int64_t dstStride, int64_t rows, int64_t cols);

struct Loops {
  const char* isa;
  // Indexed by log2 of the element size (1, 2, 4, 8 bytes).
  TransposeLoop transpose[4];
  // [from][to]; every pair of Dtype is filled.
  CastLoop cast[static_cast<int>(Dtype::kCount)][static_cast<int>(Dtype::kCount)];

  // The accumulation of op over n contiguous floats, starting from `init` (`shift` for kSumExp).
  double (*reduceRow)(ReduceOp op, const float* x, int64_t n, double init, float shift);
  // acc[j] = op(acc[j], x[j]) for j < n (`shift[j]` for kSumExp).
  void (*reduceColumns)(ReduceOp op, const float* x, int64_t n, double* acc, const float* shift);
  // ArgMax (sign 1) / ArgMin (sign -1) over `len` rows of `width` columns, `stride` apart: best[j] is the
  // row index per the TS kernel's rules (the first value wins unless a later one beats it; `last` lets ties win).
  void (*argReduceColumns)(const float* x, int64_t len, int64_t stride, int64_t width, bool isMax, bool last, int64_t* best, float* scratch);
  // The same for one contiguous row: returns the index.
  int64_t (*argReduceRow)(const float* x, int64_t len, bool isMax, bool last);

  // Softmax / LogSoftmax / Hardmax along `len` rows of `width` columns `stride` apart (x, y may alias);
  // max and sum are scratch of `width` each.
  void (*softmaxColumns)(SoftmaxKind kind, const float* x, float* y, int64_t len, int64_t stride, int64_t width, float* max, double* sum);
  // The same along one contiguous row of `len`.
  void (*softmaxRow)(SoftmaxKind kind, const float* x, float* y, int64_t len);

  // Mean and (biased) variance of n contiguous floats, in double: two passes.
  void (*moments)(const float* x, int64_t n, double* mean, double* variance);
  // y = x · a + b.
  void (*affine)(const float* x, float* y, int64_t n, float a, float b);
  // y = (x − mean) · inv · scale[j] + bias[j] (bias may be null).
  void (*normalizeScaled)(const float* x, float* y, int64_t n, float mean, float inv, const float* scale, const float* bias);
  // y[j] = x[j] · factor[j].
  void (*scaleColumns)(const float* x, float* y, int64_t n, const float* factor);
  // y = (x − mean) / denominator in double, rounded once (the TS kernels' MeanVarianceNormalization).
  void (*standardize)(const float* x, float* y, int64_t n, double mean, double denominator);
  // y[j] = (x[j] − mean[j]) / denominator[j] in double.
  void (*standardizeColumns)(const float* x, float* y, int64_t n, const double* mean, const double* denominator);
  // LRN over `channels` rows of `width` columns, `stride` apart: y = x / (bias + k · Σ x²)^beta, the sum over
  // the channel window [ch − before, ch + after] in channel order, all in double; sum is scratch of width.
  void (*lrnChannels)(const float* x, float* y, int64_t channels, int64_t stride, int64_t width, int64_t before, int64_t after, double k,
                      double beta, double bias, double* sum);
  // One output row of 2-D max pooling over a channel-blocked plane (`block` = 8 or 16 floats a pixel, rows
  // of `iw` pixels): out[x] = the lane-wise maximum over window rows [y0, y1) (already clamped to the
  // input) and columns [x·sw − pw, x·sw − pw + kw) ∩ [0, iw), for x < ow.
  void (*blockedMaxRow)(const float* in, int64_t iw, int block, int64_t y0, int64_t y1, int64_t ow, int64_t kw, int64_t sw, int64_t pw,
                        float* out);
  // A GRU step for one batch row of `n` hidden units (ONNX gates z, r, h; σ and tanh on this build's exp):
  // rh = σ(xr + hr) ⊙ h (linear_before_reset 0: the candidate's product reads it), and
  // out = (1 − z) ⊙ c + z ⊙ h with z = σ(xg[0..n) + hg[0..n)) and c = tanh(xg[2n..3n) + r ⊙ (hc + rbh))
  // where r = σ(xg[n..2n) + hg[n..2n)) (linear_before_reset 1), else c = tanh(xg[2n..3n) + hc + rbh).
  void (*gruResetGate)(const float* xr, const float* hr, const float* h, int64_t n, float* rh);
  void (*gruUpdate)(const float* xg, const float* hg, const float* hc, const float* rbh, const float* h, int64_t n, bool linearBeforeReset,
                    float* out);
  // y = σ(α·x[i]), times x[i] when `timesX` (Swish / SiLU), with y == x allowed: the activation pass after
  // a conv or product (activation_pass.h; vector_loops_logistic.inc says how fast and how accurate).
  void (*logistic)(const float* x, float* y, int64_t n, float alpha, bool timesX);
};

// Defined by the three translation units.
const Loops& GenericLoops();
const Loops& Avx2Loops();
const Loops& Avx512Loops();

}  // namespace switchyard::vec
