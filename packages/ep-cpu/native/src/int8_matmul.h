// Int8MatMul: an exact integer product (ONNX MatMulInteger's int32 result) of A [rows, K] (any batch dims
// folded into rows) and a constant B [K, N] on oneDNN's int8 matmul: Σ_k (a - a_zp[row])(b - b_zp[col]),
// uint8/int8 A and B, zero points per tensor, per row of A (a_zp) or per column of B (b_zp). V8-free,
// built once per shape of A; Run is const and safe to call concurrently.
//
// Exactness: A goes to oneDNN as uint8 (int8 shifted by 128), B as s8 (int8_weights.h), no oneDNN zero
// points, and the zero points' shares come from sums computed here:
//   Σ (a - a_zp)(b_s8 - b_zp) = Σ a·b_s8 - a_zp · Σ_k b_s8[·, n] - b_zp[n] · Σ_k a[r, ·] + K · a_zp · b_zp[n].
// oneDNN's int8 matmul kernels of 2.6.3 (brg with VNNI, gemm:jit without) keep int32 sums exact, measured
// far past 2^24; without VNNI, B past ±64 runs as 7-bit halves. Other kernels are refused (UNSUPPORTED).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "int8_weights.h"
#include "memory_desc.h"

namespace switchyard {

struct Int8MatMulParams {
  int64_t rows = 0;  // A's rows: the product of its dims but the last
  int64_t inner = 0;  // K
  int64_t columns = 0;  // N
  bool aSigned = false;
  bool bSigned = false;
  WeightSplit split = WeightSplit::kAuto;
  int threads = 0;
};

class Int8MatMul {
 public:
  // `b`: K·N elements of B's type, row-major; `zeroPoints`: 0, 1 or N elements of B's type.
  Int8MatMul(const Int8MatMulParams& params, const void* b, const void* zeroPoints, int64_t zeroPointCount);

  const Int8MatMulParams& params() const { return params_; }
  std::string implementation() const;

  static constexpr int64_t kTileRows = 16;

  // Multiplies `a` (rows · K elements of A's type) with A's zero point for row r being
  // aZero[aZeroCount == 1 ? 0 : r % aZeroCount] (A's type; null: 0), and calls emit(r0, count, tile)
  // for blocks of rows on the team's threads: tile[i * N + n] is the exact result at row r0 + i, column n.
  template <typename Emit>
  void Run(const void* a, const void* aZero, int64_t aZeroCount, Emit&& emit) const;

 private:
  struct Partials {
    dnnl::memory inputMemory, rawMemory, sumsMemory;  // own their buffers when large
    const int32_t* raw;        // [rows, convColumns]
    const int32_t* rowSums;    // Σ_k a_u8[r, k], or null when B has no zero points
    const void* aZero;
    int64_t aZeroCount;
  };
  Partials Compute(const void* a, const void* aZero, int64_t aZeroCount) const;
  void FillRows(const Partials& partials, int64_t r0, int64_t count, int32_t* tile) const;
  void ForEachBlock(void (*fn)(void*, int64_t, int64_t, int32_t*), void* context) const;

  Int8MatMulParams params_;
  bool split_ = false;
  int64_t convColumns_ = 0;               // N, or 2N when split ([high halves | low halves])
  std::vector<int32_t> columnSums_;       // Σ_k b_s8[k, n]
  std::vector<int32_t> columnZeroPoints_; // b_zp[n], s8-shifted
  bool hasColumnZeroPoints_ = false;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul primitive_;
  dnnl::memory packedB_;
};

template <typename Emit>
void Int8MatMul::Run(const void* a, const void* aZero, int64_t aZeroCount, Emit&& emit) const {
  struct Context {
    const Int8MatMul* self;
    Partials partials;
    Emit* emit;
  } context{this, Compute(a, aZero, aZeroCount), &emit};
  ForEachBlock(
      [](void* c, int64_t r0, int64_t count, int32_t* tile) {
        auto* ctx = static_cast<Context*>(c);
        ctx->self->FillRows(ctx->partials, r0, count, tile);
        (*ctx->emit)(r0, count, static_cast<const int32_t*>(tile));
      },
      &context);
}

}  // namespace switchyard
