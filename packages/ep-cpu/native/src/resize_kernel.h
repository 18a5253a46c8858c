// ONNX Resize (and Upsample) for one input shape: V8-free, built once, executed many times; Execute is
// const and safe to call concurrently.
//
// Separable: each scaled axis gets its source indices and weights once (resize_taps.h), and a run is one
// pass per scaled axis over [outer, axis, inner], vectorised over `inner` (resize_loops.h). When every
// scaled axis reads one source with weight 1 (nearest, or linear on whole-number coordinates), a single
// pass copies each output from its source instead, with no intermediate tensors.
//
// Threads: when the axes before the first scaled one (N·C for NCHW) hold enough independent planes,
// each thread resizes whole planes through its own small intermediates, which stay in cache; otherwise
// every pass splits its outputs across the team.
//
// Layouts: plain row-major, or channel-blocked ([N, C/b, ...spatial, b], b = 8 or 16, as the convs
// here read and write) when only spatial axes are scaled; the lanes are then the contiguous inner run.
//
// Measured and left out: oneDNN 2.6's resampling primitive (nearest and linear with half_pixel-style
// coordinates only) was 3-6x slower on plain NCHW ([1,96,160,160] x2, one AVX-512 core: nearest 9.3 vs
// 1.4 ms, linear 31 vs 10 ms); on nChw16c its linear kernel was faster (1.6 vs 3.8 ms) but it crashes on
// buffers that are not 64-byte aligned (Float32Arrays are only 16-byte aligned), so it is not used. Fusing two passes into
// one pass over output rows (no intermediate plane) measured no faster than these passes, whose
// intermediates stay in cache.
#pragma once

#include <string>
#include <vector>

#include "memory_desc.h"
#include "resize_loops.h"
#include "resize_taps.h"

namespace switchyard {

struct ResizeParams {
  Dims input;   // logical dims ([N, C, ...spatial] when blocked), any rank >= 1
  Dims output;  // same rank; every dim >= 1
  // One per axis, finite and > 0: what the coordinate transform divides by (the model's scales, or
  // output / input when it gave sizes).
  std::vector<double> scales;
  // tf_crop_and_resize only: starts then ends, one per axis (2 · rank values).
  std::vector<double> roi;
  ResizeMethod method;
  float extrapolation = 0;  // tf_crop_and_resize: the value of outputs whose source lies outside
  int64_t block = 0;        // 0 plain; 8 or 16: src and dst channel-blocked
  int threads = 0;          // <= 0: OpenMP default
};

class ResizeKernel {
 public:
  // Throws CodedError('INVALID_ARGUMENT') on invalid params.
  explicit ResizeKernel(const ResizeParams& params);

  void Execute(const float* src, float* dst) const;

  const ResizeParams& params() const { return params_; }
  const Dims& outputDims() const { return params_.output; }
  // Float32 elements of the caller's buffers in their layout (a blocked layout's padding lanes included).
  int64_t srcElements() const { return ElementCount(src_, "input"); }
  int64_t dstElements() const { return ElementCount(dst_, "output"); }
  // e.g. 'resize_separable:avx512 (2 passes, by plane)' or 'resize_copy:avx2'.
  std::string implementation() const;

 private:
  // One resampling pass over the tensor as it is before the pass: [outer, inSize, inner] → [outer, outSize, inner].
  struct Pass {
    size_t axis;  // physical axis
    int64_t outer, inSize, outSize, inner;
  };

  ResizeParams params_;
  Dims src_, dst_;                 // physical dims (blocked: [N, C/b, ...spatial, b])
  std::vector<AxisTaps> taps_;     // per physical axis; identity for unscaled ones and the lane axis
  std::vector<size_t> scaled_;     // physical axes that are not identity, ascending
  std::vector<Pass> passes_;       // separable plan, in execution order (empty when copyOnly_)
  bool copyOnly_ = false;          // every scaled axis picks one source: one copying pass
  int64_t repeat_ = 0;             // copy pass, plain: the last axis repeats each source this often (else 0)
  bool hasOutside_ = false;        // tf_crop_and_resize put some outputs outside the input
  int64_t planes_ = 1;             // independent planes: the product of the dims before the first scaled axis
  bool byPlane_ = false;           // threads take whole planes (else each pass is split)
  int64_t scratchFloats_ = 0;      // the largest intermediate (of one plane when byPlane_)
  const ResizeLoops* loops_;

  void PlanPasses();
  void ExecuteCopy(const float* src, float* dst) const;
  void ExecuteByPlane(const float* src, float* dst) const;
  void ExecuteByPass(const float* src, float* dst) const;
  void FillOutside(float* dst) const;
};

}  // namespace switchyard
