// The kernel library's launch API: plain C++ functions over device pointers, called by execution
// plans (src/native/plan) and by the test addon's JS entry (test_addon/kernels_js.cc). Host code
// built with g++ includes this header, so it names only host types and vendor-header types.
//
// Conventions shared by every function:
//   - Tensors are dense and row-major unless a function takes strides. Shapes are `TensorShape`
//     (rank <= kMaxRank, rank 0 = scalar). Sizes and indices are int64_t.
//   - Every launch is asynchronous on `stream` (nullptr = the default stream) and returns the launch
//     status; faults inside a kernel surface at the next synchronization. A shape/dtype combination
//     a function does not serve returns hipErrorInvalidValue without launching anything.
//   - fp16 data is read and written as __half, with float32 arithmetic (and accumulation) inside.
//   - Zero-element work returns hipSuccess without a launch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../vendor/gpu.h"

namespace switchyard::kernels {

constexpr int kMaxRank = 6;

// Element types. Movement kernels (Gather, Concat, Slice, Transpose, Expand, Pad) accept every
// dtype (they copy bytes); arithmetic kernels accept kFloat32 and kFloat16.
enum class DType : int { kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kInt64 = 3, kBool = 4, kInt8 = 5, kUint8 = 6 };

// Bytes per element of `dtype` (0 for an unknown value).
inline size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: case DType::kInt32: return 4;
    case DType::kFloat16: return 2;
    case DType::kInt64: return 8;
    case DType::kBool: case DType::kInt8: case DType::kUint8: return 1;
  }
  return 0;
}

struct TensorShape {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t ElementCount() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
};

// ---------------------------------------------------------------- elementwise.hip

// The op lists below are the one source of their numbers: the addon reports them (nativeEnums()) and
// native-hip/src/native-enums.generated.ts is written from them by scripts/gen-native-enums.mjs (a unit
// test keeps it in step with this header, a GPU test with the built addon).
#define SWITCHYARD_ENUM_ENTRY(name) k##name,

// Comparisons write bool (one byte, 0 or 1); the logical ops read and write bool.
#define SWITCHYARD_BINARY_OPS(X) \
  X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Max) X(Min) \
  X(Equal) X(Less) X(Greater) X(LessOrEqual) X(GreaterOrEqual) \
  X(And) X(Or) X(Xor)
enum class BinaryOp : int { SWITCHYARD_BINARY_OPS(SWITCHYARD_ENUM_ENTRY) };

// GeluErf: x/2 * (1 + erf(x/sqrt 2)); GeluTanh: x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
// Swish: x * sigmoid(alpha x); Elu: x < 0 ? alpha (e^x - 1) : x; Softplus: log(1 + e^x), linear above
// 20; Mish: x * tanh(softplus(x)); Selu: beta (= gamma) * (x <= 0 ? alpha (e^x - 1) : x); Softsign:
// x / (1 + |x|). Append new ops at the end: plans built by older code keep their numbers.
#define SWITCHYARD_UNARY_OPS(X) \
  X(Identity) X(Relu) X(LeakyRelu) X(Sigmoid) X(Tanh) X(GeluErf) X(GeluTanh) X(HardSigmoid) X(HardSwish) X(Clip) \
  X(Erf) X(Exp) X(Log) X(Sqrt) X(Neg) X(Abs) X(Reciprocal) \
  X(Swish) X(Elu) X(Softplus) X(Mish) X(Selu) X(Softsign)
enum class UnaryOp : int { SWITCHYARD_UNARY_OPS(SWITCHYARD_ENUM_ENTRY) };
#define SWITCHYARD_COUNT_ENTRY(name) +1
constexpr int kUnaryOpCount = 0 SWITCHYARD_UNARY_OPS(SWITCHYARD_COUNT_ENTRY);

// Parameters of the unary ops that take some: LeakyRelu alpha; HardSigmoid alpha, beta (ONNX
// defaults 0.2, 0.5); Clip alpha = min, beta = max (use +-INFINITY for "no bound"); Swish and Elu
// alpha; Selu alpha, beta = gamma. Others ignore them.
struct UnaryParams {
  float alpha = 0.0f;
  float beta = 0.0f;
};

// out = op(a, b) with numpy broadcasting; out_shape must be the broadcast of a_shape and b_shape.
// dtype is the operands' type: f32/f16 (computed in float), i32/i64 (computed in int64: Div truncates
// toward zero and gives 0 for a zero divisor, Pow with a negative exponent gives 0 unless the base
// is +-1), or bool (Equal and the logical ops only; the logical ops take bool only). Comparisons and
// logical ops write bool. out may be an operand of its shape.
hipError_t LaunchBinary(BinaryOp op, DType dtype, const void* a, const TensorShape& a_shape, const void* b,
                        const TensorShape& b_shape, void* out, const TensorShape& out_shape, hipStream_t stream);

// out = cond ? x : y with three-way numpy broadcasting; cond is bool (one byte), x/y/out any dtype.
hipError_t LaunchWhere(DType dtype, const uint8_t* cond, const TensorShape& cond_shape, const void* x,
                       const TensorShape& x_shape, const void* y, const TensorShape& y_shape, void* out,
                       const TensorShape& out_shape, hipStream_t stream);

// out[i] = op(x[i]) for i < count (f32/f16); out may equal x.
hipError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* out, int64_t count, UnaryParams params,
                       hipStream_t stream);

// out[i] = !x[i] over bool (one byte each) for i < count; out may equal x.
hipError_t LaunchNot(const uint8_t* x, uint8_t* out, int64_t count, hipStream_t stream);

// out[i] = (to)x[i] for i < count. Float -> int truncates toward zero; anything -> bool is x != 0;
// pairs among f32, f16, i32, i64, bool, i8, u8 (float -> 8-bit truncates, then wraps modulo 256).
hipError_t LaunchCast(DType from, DType to, const void* x, void* out, int64_t count, hipStream_t stream);

// The first cut's same-shape float32 entry, kept for src/native/elementwise.cc.
enum class ElementwiseOp : int { kAdd = 0, kMul = 1, kRelu = 2 };
// Same-shape float32: out[i] = op(a[i], b[i]) for i < count (`b` ignored for Relu).
hipError_t LaunchElementwiseF32(ElementwiseOp op, const float* a, const float* b, float* out, size_t count,
                                hipStream_t stream);

// ---------------------------------------------------------------- reduce.hip

enum class ReduceOp : int { kSum = 0, kMean, kMax, kMin, kSumSquare, kL1, kL2, kLogSumExp };

// x viewed as [outer, reduce, inner] (one contiguous range of axes reduced); out is [outer, inner].
// reduce == 0 yields the identity (0 for sums, -inf/+inf for Max/Min), as ONNX does for empty sets.
hipError_t LaunchReduce(ReduceOp op, DType dtype, const void* x, int64_t outer, int64_t reduce, int64_t inner,
                        void* out, hipStream_t stream);

// ---------------------------------------------------------------- norm.hip

// Softmax (or LogSoftmax when `log`) over the last axis: x and out are [rows, cols].
hipError_t LaunchSoftmax(DType dtype, const void* x, void* out, int64_t rows, int64_t cols, bool log,
                         hipStream_t stream);

// LayerNormalization over the last axis of [rows, cols]: h = x (+ residual when non-null);
// out = (h - mean) / sqrt(var + epsilon) * gamma (+ beta when non-null). gamma/beta are [cols] of dtype.
// Optional outputs (nullptr to skip): sum_out = h (dtype, [rows, cols]), mean/inv_std = float32 [rows].
hipError_t LaunchLayerNorm(DType dtype, const void* x, const void* residual, const void* gamma, const void* beta,
                           void* out, void* sum_out, float* mean, float* inv_std, int64_t rows, int64_t cols,
                           float epsilon, hipStream_t stream);

// RMSNormalization over the last axis of [rows, cols]: out = x / sqrt(mean(x^2) + epsilon) * scale,
// scale [cols] of dtype; the mean square accumulated in float32.
hipError_t LaunchRmsNorm(DType dtype, const void* x, const void* scale, void* out, int64_t rows, int64_t cols, float epsilon,
                         hipStream_t stream);

// ---------------------------------------------------------------- movement.hip

// Gather along an axis: data viewed as [outer, axis_dim, inner], indices (int32 or int64, negative
// wraps by + axis_dim) has index_count entries; out is [outer, index_count, inner]. An index outside
// [-axis_dim, axis_dim) writes zeros (a kernel cannot throw; callers validate constants beforehand).
hipError_t LaunchGather(DType dtype, const void* data, int64_t outer, int64_t axis_dim, int64_t inner,
                        const void* indices, DType index_dtype, int64_t index_count, void* out, hipStream_t stream);

// Concat along an axis: input i is [outer, axis_dims[i], inner]; out is [outer, sum(axis_dims), inner].
// `inputs` and `axis_dims` are host arrays of `count` entries (device pointers in `inputs`).
hipError_t LaunchConcat(DType dtype, const void* const* inputs, const int64_t* axis_dims, int count, int64_t outer,
                        int64_t inner, void* out, hipStream_t stream);

// Strided gather, the engine behind Slice/Transpose/Expand: out (dense, out_shape) takes
// x[offset + sum(o_d * x_strides[d])] (strides in elements, may be 0 or negative).
hipError_t LaunchStridedCopy(DType dtype, const void* x, int64_t offset, const int64_t* x_strides, void* out,
                             const TensorShape& out_shape, hipStream_t stream);

// Slice: starts[d] already clamped into range and steps[d] != 0 (negative walks backwards);
// out_shape holds the resulting sizes.
hipError_t LaunchSlice(DType dtype, const void* x, const TensorShape& x_shape, const int64_t* starts,
                       const int64_t* steps, void* out, const TensorShape& out_shape, hipStream_t stream);

// Transpose: out dim d = x dim perm[d]. Swaps of the last two dims (batched) take a tiled path, or one
// thread per output row when that row is narrow (NCHW -> NHWC of few channels).
hipError_t LaunchTranspose(DType dtype, const void* x, const TensorShape& x_shape, const int* perm, void* out,
                           hipStream_t stream);

// Expand: x broadcast (numpy rules) into out_shape.
hipError_t LaunchExpand(DType dtype, const void* x, const TensorShape& x_shape, void* out,
                        const TensorShape& out_shape, hipStream_t stream);

enum class PadMode : int { kConstant = 0, kReflect, kEdge };

// Pad: out dim d = x dim d + pads_begin[d] + pads_end[d] (caller computes out_shape; negative pads
// crop). Constant mode writes `value` converted to dtype. Reflect needs x dims >= 2 where padded.
hipError_t LaunchPad(DType dtype, const void* x, const TensorShape& x_shape, const int64_t* pads_begin, void* out,
                     const TensorShape& out_shape, PadMode mode, double value, hipStream_t stream);

// ---------------------------------------------------------------- resize.hip

// ONNX Resize over the last two axes of [planes, in_h, in_w] -> [planes, out_h, out_w] (NCHW with
// planes = N*C). Coordinates map back per axis by `transform` with that axis's scale (ONNX: the
// given scale, or out/in when sizes were given); nearest rounds by `nearest`, linear is bilinear with
// edge clamping. f32/f16.
enum class ResizeMode : int { kNearest = 0, kLinear = 1 };
enum class ResizeTransform : int { kHalfPixel = 0, kAsymmetric, kAlignCorners, kPytorchHalfPixel, kTfHalfPixelForNn };
enum class ResizeNearest : int { kRoundPreferFloor = 0, kRoundPreferCeil, kFloor, kCeil };
struct ResizeShape {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  float scale_h = 1.0f, scale_w = 1.0f;
  ResizeMode mode = ResizeMode::kNearest;
  ResizeTransform transform = ResizeTransform::kHalfPixel;
  ResizeNearest nearest = ResizeNearest::kRoundPreferFloor;
};
hipError_t LaunchResize(DType dtype, const void* x, void* out, const ResizeShape& shape, hipStream_t stream);

// ---------------------------------------------------------------- epilogue.hip

enum class ResidualPlacement : int { kAfterActivation = 0, kBeforeActivation = 1 };

// GEMM/conv epilogue over x viewed as [outer, channels, inner] (GEMM output [M, N]: outer = M,
// channels = N, inner = 1; NCHW conv: outer = N, channels = C, inner = H*W):
//   v = x + bias[c] (bias optional); v = act(v) with residual added before or after act; out = v.
// residual (optional) has x's shape. out may equal x or residual (in place). f32/f16.
hipError_t LaunchBiasActivation(DType dtype, const void* x, const void* bias, const void* residual, void* out,
                                int64_t outer, int64_t channels, int64_t inner, UnaryOp activation,
                                UnaryParams params, ResidualPlacement placement, hipStream_t stream);

// ---------------------------------------------------------------- im2col.hip

// A 2-D NCHW convolution's geometry, as im2col needs it (pads are the begin pads; the end pads only
// decide oh/ow, which the caller computed).
struct Im2ColShape {
  int n = 0, c = 0, h = 0, w = 0;
  int kh = 0, kw = 0;
  int pad_top = 0, pad_left = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int oh = 0, ow = 0;
};

// x [n, c, h, w] -> col [n, c*kh*kw, oh*ow]: row (ci*kh + ky)*kw + kx of image ni holds the input
// pixel that filter tap meets at each output position (0 in the padding), so that a convolution is
// the GEMM Y[ni] (k x oh*ow) = W (k x c*kh*kw) * col[ni]. f32/f16; x and col below 2^31 elements.
hipError_t LaunchIm2Col(DType dtype, const void* x, const Im2ColShape& shape, void* col, hipStream_t stream);

// ---------------------------------------------------------------- attention.hip

// Scaled dot-product attention of one sequence, every head at once: for head h and query row i,
//   out[h, i, :] = softmax_j(scale * q[h, i, :] . k[h, j, :] + mask[h, i, j]) . v[h, j, :]
// Each operand is a strided view: element (h, row, d) of q sits at q[h * q_head + row * q_ld + d]
// (likewise k, v and out), so the heads can be read in place from a [seq, heads*depth] projection
// and written into one. The additive mask (optional, nullptr for none) is read at
// mask[h * m_head + i * m_row + j * m_col]: strides of 0 broadcast it. Softmax in float32 whatever
// the storage type, in one pass over the keys (a running maximum and sum). depth <= kAttentionMaxDepth.
//
// ONNX Attention (opset 23) adds, each off by default so the fused chain above keeps its meaning:
//   - a batch: with heads_per_batch > 0, flat head h is batch b = h / heads_per_batch, head
//     hq = h % heads_per_batch, and every operand's offset gains b * <x>_batch (the head strides
//     apply to hq);
//   - grouped K/V heads (GQA): K and V are read at head hq / kv_group;
//   - mask_bool: the mask holds bytes (bool), 0 meaning "masked" (-inf), else nothing is added;
//     mask_cols > 0: keys at or past it are masked (an ONNX mask shorter than the keys);
//   - causal: key j is masked for query row i when j > i (no past: the top-left alignment);
//   - empty_rows_zero: a row with every key masked writes zeros (ONNX Attention's rule) instead of
//     the NaN that a Softmax of -inf gives.
constexpr int64_t kAttentionMaxDepth = 128;
struct AttentionShape {
  int64_t heads = 0, seq_q = 0, seq_k = 0, depth = 0;
  int64_t q_ld = 0, q_head = 0;
  int64_t k_ld = 0, k_head = 0;
  int64_t v_ld = 0, v_head = 0;
  int64_t o_ld = 0, o_head = 0;
  int64_t m_head = 0, m_row = 0, m_col = 0;
  float scale = 1.0f;
  int64_t heads_per_batch = 0;
  int64_t q_batch = 0, k_batch = 0, v_batch = 0, o_batch = 0, m_batch = 0;
  int64_t kv_group = 1;
  int64_t mask_cols = 0;
  bool mask_bool = false;
  bool causal = false;
  bool empty_rows_zero = false;
};
hipError_t LaunchAttention(DType dtype, const void* q, const void* k, const void* v, const void* mask, void* out,
                           const AttentionShape& shape, hipStream_t stream);

// ---------------------------------------------------------------- rotary.hip

// ONNX RotaryEmbedding over x [batch, heads, seq, head_size] (packed: [batch, seq, heads * head_size]),
// out of the same shape. The caches are [cache_rows, rot_dim / 2]: with positions (int64
// [pos_batch, seq], pos_batch 1 or batch) a position picks the row, else row (b or 0) * seq + s for
// caches of [cache_batch, seq, rot_dim / 2]. rot_dim even, at most head_size.
struct RotaryShape {
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0, rot_dim = 0;
  bool packed = false, interleaved = false;
  int64_t cache_rows = 0, cache_batch = 1, pos_batch = 1;
};
hipError_t LaunchRotary(DType dtype, const void* x, const void* cos_cache, const void* sin_cache, const int64_t* positions, void* out,
                        const RotaryShape& shape, hipStream_t stream);

// ---------------------------------------------------------------- lstm.hip

// ONNX LSTM (layout 0, default activations, no peepholes, no clip, every sequence of full length):
// x [seq, batch, input], w [dirs, 4 * hidden, input], r [dirs, 4 * hidden, hidden], gates in the
// order i, o, f, c; bias [dirs, 8 * hidden] (Wb then Rb) or null; initial h and c [dirs, batch,
// hidden] or null (zeros). Writes y [seq, dirs, batch, hidden], y_h and y_c [dirs, batch, hidden];
// any of the three may be null. dirs 2 is bidirectional (direction 1 runs backwards in time); with
// dirs 1, `reverse` runs it backwards.
//
// Two forms. Given a workspace of LstmWorkspaceBytes: x·Wᵀ + biases for every step as one projection
// kernel, then one launch per time step whose blocks each own a few hidden units of every (batch row,
// direction) -- only R·h is left on the sequential path, spread over the whole GPU. Without one: a
// single block per (batch row, direction) walks the sequence (h, c, gates and x_t in shared memory,
// so 6 * hidden + input floats must fit in 48 KiB); one launch, but one block's worth of the GPU.
struct LstmShape {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false;
};
// Shared memory one block of the single-block form uses: h, c, the gates and x_t, as float.
inline size_t LstmSharedBytes(const LstmShape& s) { return static_cast<size_t>(6 * s.hidden + s.input) * sizeof(float); }
inline size_t LstmAlign(size_t bytes) { return (bytes + 255) / 256 * 256; }
// Workspace of the stepped form (float32): the projected gates [dirs, seq * batch, 4 * hidden], h
// twice (the step reads one and writes the other) and c, each [dirs, batch, hidden], 256-byte aligned.
inline size_t LstmWorkspaceBytes(const LstmShape& s) {
  const size_t state = static_cast<size_t>(s.dirs * s.batch * s.hidden) * sizeof(float);
  return LstmAlign(static_cast<size_t>(s.dirs * s.seq * s.batch * 4 * s.hidden) * sizeof(float)) + 3 * LstmAlign(state);
}
// `weight_dtype` types W, R and the bias (float32 or X's `dtype`). `workspace` null (or smaller than
// LstmWorkspaceBytes) picks the single-block form.
hipError_t LaunchLstm(DType dtype, DType weight_dtype, const void* x, const void* w, const void* r, const void* bias, const void* h0,
                      const void* c0, void* y, void* y_h, void* y_c, const LstmShape& shape, void* workspace, size_t workspace_bytes,
                      hipStream_t stream);

// ---------------------------------------------------------------- split_tf32.hip

// Writes src [rows, cols] (rows ld_src apart) three times into dst -- at dst, dst + part_stride and
// dst + 2 * part_stride, rows ld_dst apart -- as its TF32 high part, except part `lo_part` (0..2),
// which gets the TF32 low part x - hi. The activation side of a 3xTF32 product. Every index below 2^31.
hipError_t LaunchSplitTf32(const float* src, int64_t rows, int64_t cols, int64_t ld_src, float* dst, int64_t ld_dst,
                           int64_t part_stride, int lo_part, hipStream_t stream);

// ---------------------------------------------------------------- quantize.hip

// Blocks of DynamicQuantizeLinear's range pass: its scratch holds 2 floats per block.
constexpr int kQuantRangeBlocks = 1024;
constexpr size_t kQuantRangeScratchBytes = 2 * kQuantRangeBlocks * sizeof(float);

// DynamicQuantizeLinear (opset 11, uint8) of float32 x [count]: the range [min(0, min x), max(0, max x)]
// (NaN skipped), scale = range / 255 and zero point = saturate(round(-min / scale)) in float32 with
// rounding half to even, y = saturate(round(x / scale) + zero point). An all-zero range gives scale 0,
// zero point 0 and y 0 (no division by zero), as the CPU EP does. `scratch` is kQuantRangeScratchBytes of
// device memory. Three launches, none synchronizing.
hipError_t LaunchDynamicQuantize(const float* x, int64_t count, uint8_t* y, float* scale, uint8_t* zero_point, float* scratch,
                                 hipStream_t stream);

// out[i] = float(x[i]) - float(zero_point[(i / inner) % channels]) for x int8 or uint8 (the zero point
// of x's type, nullptr for none): the operand of ConvInteger/MatMulInteger as exact float32 integers in
// [-255, 255]. channels = 1 for a per-tensor zero point.
hipError_t LaunchQuantShift(DType dtype, const void* x, const void* zero_point, int64_t count, int64_t channels, int64_t inner,
                            float* out, hipStream_t stream);

// The rescale after an integer convolution, on float32 x viewed as [planes, inner] (plane p in channel
// p % channels): out = x * scale[0], then + bias[channel] when bias is given, then max(., 0) when
// relu -- each operation rounded on its own (no fused multiply-add), so the result is the Mul, Add and
// Relu ops' one by one. out may equal x.
hipError_t LaunchRescale(const float* x, const float* scale, const float* bias, float* out, int64_t planes, int64_t channels, int64_t inner,
                         bool relu, hipStream_t stream);

// ---------------------------------------------------------------- host helpers

// Numpy broadcast of two shapes into *out; false when incompatible.
inline bool BroadcastShapes(const TensorShape& a, const TensorShape& b, TensorShape* out) {
  const int rank = a.rank > b.rank ? a.rank : b.rank;
  out->rank = rank;
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank), ib = i - (rank - b.rank);
    const int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->dims[i] = da == 1 ? db : da;
  }
  return true;
}

}  // namespace switchyard::kernels
