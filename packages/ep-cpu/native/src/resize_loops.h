// The inner loops of a resize pass, compiled once per instruction set (resize_loops_impl.h, included by
// resize_loops_base.cc, resize_loops_avx2.cc and resize_loops_avx512.cc with their own compiler flags)
// and picked at run time from the instruction set oneDNN itself dispatches to, so that
// ONEDNN_MAX_CPU_ISA caps them too (tests run the AVX2 loops on an AVX-512 machine that way).
//
// Both loops resample one row of `count` outputs along an axis of a tensor viewed as
// [outer, axis, inner] (one outer index; the caller splits the rest over threads):
//   dst[j * inner + i] = sum over k < taps of weight[j * taps + k] * src[index[j * taps + k] * inner + i].
// With inner 1 (the last axis of a plain tensor) that is a gather; otherwise (an outer axis, or any
// spatial axis of a channel-blocked tensor, where inner holds the lanes) each term is a contiguous row
// and the loop runs over it in vectors.
#pragma once

#include <cstdint>

namespace switchyard {

struct ResizeLoops {
  const char* isa;  // 'avx512', 'avx2' or 'sse2' (the baseline build)
  void (*resample)(float* dst, const float* src, const int32_t* index, const float* weight, int64_t taps, int64_t count, int64_t inner);
  // The one-tap, weight-1 case (nearest, or linear on whole-number coordinates): copies, no arithmetic.
  void (*pick)(float* dst, const float* src, const int32_t* index, int64_t count, int64_t inner);
  // pick with inner 1 and index[j] = j / repeat (src already offset by index[0]): integer nearest upsampling.
  void (*pickRepeated)(float* dst, const float* src, int64_t repeat, int64_t count);
};

// The loops for this CPU (and oneDNN's ISA cap), chosen once.
const ResizeLoops& SelectedResizeLoops();

namespace resize_loops {
extern const ResizeLoops kBase;
extern const ResizeLoops kAvx2;
extern const ResizeLoops kAvx512;
}  // namespace resize_loops

}  // namespace switchyard
