// Constant 8-bit weights in the form oneDNN's int8 primitives take (s8 only), exactly.
//
// uint8 weights w with zero point z become s8 by subtracting 128 from both: w - z = (w - 128) - (z - 128),
// so any uint8/int8 weights and zero points are s8 weights plus an s8-range zero point; oneDNN computes
// Σ x·w_s8 and the caller removes the zero point's share (w_zp · Σ x) itself.
//
// Why a split: without VNNI (AVX2, AVX-512 before Cascade Lake) oneDNN multiplies u8 × s8 with
// vpmaddubsw, which adds two products into a saturating int16: 255 · (|w1| + |w2|) overflows once
// |w1| + |w2| > 128, and the int32 result is wrong (measured: almost every output of a random 3x3 conv).
// With |w| <= 64 it cannot overflow, so weights beyond that run as two convolutions in one: w = 2·hi + lo
// with hi = floor(w / 2) in [-64, 63] and lo in {0, 1}, doubling the output channels; the result is
// 2·y_hi + y_lo, exact. VNNI's vpdpbusd accumulates in int32 and needs none of this.
#pragma once

#include <cstdint>
#include <vector>

namespace switchyard {

// Whether oneDNN's int8 kernels on this CPU (as capped by ONEDNN_MAX_CPU_ISA) accumulate u8 × s8
// products without int16 saturation (VNNI).
bool ExactInt8Products();

// When to split weights into 7-bit halves: where needed (no VNNI and some |w| > 64), or always (tests).
enum class WeightSplit { kAuto, kAlways };

// The weights' element type as they arrive.
struct RawWeights {
  const void* data;
  bool isSigned;  // int8, else uint8
};

// One weight value as s8-range int (uint8 shifted by 128).
inline int32_t SignedWeight(RawWeights w, int64_t i) {
  return w.isSigned ? static_cast<const int8_t*>(w.data)[i] : static_cast<int32_t>(static_cast<const uint8_t*>(w.data)[i]) - 128;
}

// Zero point of output channel `channel` (zeroPoints has 0, 1 or per-channel entries, weights' type), shifted alike.
int32_t SignedZeroPoint(RawWeights zeroPoints, int64_t count, int64_t channel, bool weightsSigned);

// Whether weights of `count` elements need the split under `mode` on this CPU.
bool NeedsSplit(RawWeights w, int64_t count, WeightSplit mode);

// The 7-bit halves of an s8 weight: w = 2·hi + lo.
inline int8_t HighHalf(int32_t w) { return static_cast<int8_t>(w >> 1); }  // arithmetic shift: floor(w / 2)
inline int8_t LowHalf(int32_t w) { return static_cast<int8_t>(w & 1); }

}  // namespace switchyard
