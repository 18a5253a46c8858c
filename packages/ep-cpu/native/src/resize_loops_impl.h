// The bodies of ResizeLoops (resize_loops.h), included once by each resize_loops_<isa>.cc, which is built
// with that instruction set's flags and defines RESIZE_LOOPS_NAME / RESIZE_LOOPS_ISA first. Everything
// here has internal linkage and calls no inline library code: a function the linker could share between
// the copies might end up built for AVX-512 and run on a CPU without it.
#include <cstdint>
#include <cstring>

#include "resize_loops.h"

namespace switchyard {
namespace {

// Lanes of a channel-blocked tensor (or any short fixed inner run): the accumulator stays in registers.
template <int kInner>
void ResampleFixed(float* __restrict dst, const float* __restrict src, const int32_t* __restrict index, const float* __restrict weight,
                   int64_t taps, int64_t count) {
  for (int64_t j = 0; j < count; ++j, dst += kInner, index += taps, weight += taps) {
    float acc[kInner];
    const float* s0 = src + static_cast<int64_t>(index[0]) * kInner;
    for (int i = 0; i < kInner; ++i) acc[i] = weight[0] * s0[i];
    for (int64_t k = 1; k < taps; ++k) {
      const float* s = src + static_cast<int64_t>(index[k]) * kInner;
      const float w = weight[k];
      for (int i = 0; i < kInner; ++i) acc[i] += w * s[i];
    }
    for (int i = 0; i < kInner; ++i) dst[i] = acc[i];
  }
}

// Rows of any length: two source rows per sweep over the output row, which stays in L1.
void ResampleRows(float* __restrict dst, const float* __restrict src, const int32_t* __restrict index, const float* __restrict weight,
                  int64_t taps, int64_t count, int64_t inner) {
  for (int64_t j = 0; j < count; ++j, dst += inner, index += taps, weight += taps) {
    const float* s0 = src + static_cast<int64_t>(index[0]) * inner;
    const float w0 = weight[0];
    int64_t k = 1;
    if (taps >= 2) {
      const float* s1 = src + static_cast<int64_t>(index[1]) * inner;
      const float w1 = weight[1];
      for (int64_t i = 0; i < inner; ++i) dst[i] = w0 * s0[i] + w1 * s1[i];
      k = 2;
    } else {
      for (int64_t i = 0; i < inner; ++i) dst[i] = w0 * s0[i];
    }
    for (; k + 1 < taps; k += 2) {
      const float* sa = src + static_cast<int64_t>(index[k]) * inner;
      const float* sb = src + static_cast<int64_t>(index[k + 1]) * inner;
      const float wa = weight[k], wb = weight[k + 1];
      for (int64_t i = 0; i < inner; ++i) dst[i] += wa * sa[i] + wb * sb[i];
    }
    if (k < taps) {
      const float* s = src + static_cast<int64_t>(index[k]) * inner;
      const float w = weight[k];
      for (int64_t i = 0; i < inner; ++i) dst[i] += w * s[i];
    }
  }
}

// inner 1: each output gathers its taps from one source row.
void ResampleGather(float* __restrict dst, const float* __restrict src, const int32_t* __restrict index, const float* __restrict weight,
                    int64_t taps, int64_t count) {
  if (taps == 2) {
    for (int64_t j = 0; j < count; ++j) dst[j] = weight[2 * j] * src[index[2 * j]] + weight[2 * j + 1] * src[index[2 * j + 1]];
  } else if (taps == 4) {
    for (int64_t j = 0; j < count; ++j) {
      const int32_t* x = index + 4 * j;
      const float* w = weight + 4 * j;
      dst[j] = (w[0] * src[x[0]] + w[1] * src[x[1]]) + (w[2] * src[x[2]] + w[3] * src[x[3]]);
    }
  } else {
    for (int64_t j = 0; j < count; ++j) {
      const int32_t* x = index + taps * j;
      const float* w = weight + taps * j;
      float acc = 0;
      for (int64_t k = 0; k < taps; ++k) acc += w[k] * src[x[k]];
      dst[j] = acc;
    }
  }
}

void Resample(float* dst, const float* src, const int32_t* index, const float* weight, int64_t taps, int64_t count, int64_t inner) {
  if (inner == 1) ResampleGather(dst, src, index, weight, taps, count);
  else if (inner == 8) ResampleFixed<8>(dst, src, index, weight, taps, count);
  else if (inner == 16) ResampleFixed<16>(dst, src, index, weight, taps, count);
  else ResampleRows(dst, src, index, weight, taps, count, inner);
}

template <int kInner>
void PickFixed(float* __restrict dst, const float* __restrict src, const int32_t* __restrict index, int64_t count) {
  for (int64_t j = 0; j < count; ++j, dst += kInner) {
    const float* s = src + static_cast<int64_t>(index[j]) * kInner;
    for (int i = 0; i < kInner; ++i) dst[i] = s[i];
  }
}

// Integer nearest upsampling of a contiguous row: each source repeated `repeat` times (the index pattern
// index[j] = index[0] + j / repeat), as shuffles rather than gathers.
template <int kRepeat>
void Repeat(float* __restrict dst, const float* __restrict src, int64_t count) {
  const int64_t whole = count / kRepeat;
  for (int64_t i = 0; i < whole; ++i)
    for (int r = 0; r < kRepeat; ++r) dst[i * kRepeat + r] = src[i];
  for (int64_t j = whole * kRepeat; j < count; ++j) dst[j] = src[j / kRepeat];
}

void PickRepeated(float* dst, const float* src, int64_t repeat, int64_t count) {
  switch (repeat) {
    case 2: Repeat<2>(dst, src, count); break;
    case 3: Repeat<3>(dst, src, count); break;
    case 4: Repeat<4>(dst, src, count); break;
    default:
      for (int64_t j = 0; j < count; ++j) dst[j] = src[j / repeat];
  }
}

void Pick(float* __restrict dst, const float* __restrict src, const int32_t* __restrict index, int64_t count, int64_t inner) {
  if (inner == 1) {
    for (int64_t j = 0; j < count; ++j) dst[j] = src[index[j]];
  } else if (inner == 8) {
    PickFixed<8>(dst, src, index, count);
  } else if (inner == 16) {
    PickFixed<16>(dst, src, index, count);
  } else {
    const size_t bytes = static_cast<size_t>(inner) * sizeof(float);
    for (int64_t j = 0; j < count; ++j) std::memcpy(dst + j * inner, src + static_cast<int64_t>(index[j]) * inner, bytes);
  }
}

}  // namespace

namespace resize_loops {
const ResizeLoops RESIZE_LOOPS_NAME = {RESIZE_LOOPS_ISA, &Resample, &Pick, &PickRepeated};
}  // namespace resize_loops

}  // namespace switchyard
