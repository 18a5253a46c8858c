// Small-block transposes for moving int8 tensors between planar and channels-last layouts, written with
// GCC vector extensions so they compile to shuffles on any target (SSE2 on x86-64, NEON elsewhere)
// without assuming an ISA. Each handles one block; callers loop over tiles.
#pragma once

#include <cstdint>
#include <cstring>

namespace switchyard {

typedef uint8_t Bytes16 __attribute__((vector_size(16)));
typedef int32_t Ints4 __attribute__((vector_size(16)));

// dstRows[j][i] = src[i * srcStride + j] for a 16 x 16 block of bytes (src rows i, dst rows j).
inline void Transpose16x16Bytes(const uint8_t* src, int64_t srcStride, uint8_t* const* dstRows) {
  Bytes16 r[16];
  for (int i = 0; i < 16; ++i) std::memcpy(&r[i], src + i * srcStride, 16);
  // Four rounds of interleaving pairs of rows (8-, 16-, 32-, then 64-bit units): a standard butterfly.
  Bytes16 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = __builtin_shuffle(r[2 * i], r[2 * i + 1], Bytes16{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23});
    t[2 * i + 1] = __builtin_shuffle(r[2 * i], r[2 * i + 1], Bytes16{8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31});
  }
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 2; ++k) {
      const Bytes16 a = t[4 * i + k], b = t[4 * i + 2 + k];
      r[4 * i + 2 * k] = __builtin_shuffle(a, b, Bytes16{0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23});
      r[4 * i + 2 * k + 1] = __builtin_shuffle(a, b, Bytes16{8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31});
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) {
      const Bytes16 a = r[8 * i + k], b = r[8 * i + 4 + k];
      t[8 * i + 2 * k] = __builtin_shuffle(a, b, Bytes16{0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23});
      t[8 * i + 2 * k + 1] = __builtin_shuffle(a, b, Bytes16{8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31});
    }
  }
  for (int k = 0; k < 8; ++k) {
    const Bytes16 a = t[k], b = t[8 + k];
    r[2 * k] = __builtin_shuffle(a, b, Bytes16{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23});
    r[2 * k + 1] = __builtin_shuffle(a, b, Bytes16{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  }
  for (int j = 0; j < 16; ++j) std::memcpy(dstRows[j], &r[j], 16);
}

// dst[j * dstStride + i] = src[i * srcStride + j] for a 4 x 4 block of int32.
inline void Transpose4x4Ints(const int32_t* src, int64_t srcStride, int32_t* dst, int64_t dstStride) {
  Ints4 r0, r1, r2, r3;
  std::memcpy(&r0, src, 16);
  std::memcpy(&r1, src + srcStride, 16);
  std::memcpy(&r2, src + 2 * srcStride, 16);
  std::memcpy(&r3, src + 3 * srcStride, 16);
  const Ints4 t0 = __builtin_shuffle(r0, r1, Ints4{0, 4, 1, 5}), t1 = __builtin_shuffle(r0, r1, Ints4{2, 6, 3, 7});
  const Ints4 t2 = __builtin_shuffle(r2, r3, Ints4{0, 4, 1, 5}), t3 = __builtin_shuffle(r2, r3, Ints4{2, 6, 3, 7});
  const Ints4 c0 = __builtin_shuffle(t0, t2, Ints4{0, 1, 4, 5}), c1 = __builtin_shuffle(t0, t2, Ints4{2, 3, 6, 7});
  const Ints4 c2 = __builtin_shuffle(t1, t3, Ints4{0, 1, 4, 5}), c3 = __builtin_shuffle(t1, t3, Ints4{2, 3, 6, 7});
  std::memcpy(dst, &c0, 16);
  std::memcpy(dst + dstStride, &c1, 16);
  std::memcpy(dst + 2 * dstStride, &c2, 16);
  std::memcpy(dst + 3 * dstStride, &c3, 16);
}

}  // namespace switchyard
