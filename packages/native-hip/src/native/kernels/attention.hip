// Fused attention (launch.h, "attention.hip"): the head products, the additive mask and the softmax
// of one sequence in one kernel. As separate steps, BERT-base at sequence 128 runs four kernels per
// layer (Q.K^T, mask Add, Softmax, P.V) and writes the [heads, seq, seq] scores out and reads them
// back three times; here they never leave the multiprocessor.
//
// A block takes kRowsPerBlock query rows of one head, each warp kRowsPerWarp of them, together (their
// products share every K and V load). The keys go by tiles: the block stages a tile's K and V rows
// in shared memory as float, zero-padded to a depth of 32 * kVec; then each warp
//   - scores its rows against the tile: lane j takes keys j, j + 32, ... (4 / kVec of them), reading
//     Q and K four floats at a time (K rows padded by 4 floats, so the lanes' rows fall in different
//     banks);
//   - folds the tile into a running softmax per row (maximum m, sum l), and parks the tile's
//     probabilities in shared memory;
//   - adds P.V to the running output, lane j holding depths j*kVec .. j*kVec + kVec - 1.
// After the last tile the output is divided by l. Only 32 lanes of a warp work: on 64-wide AMD
// wavefronts the upper half idles (correct, not tuned).
#include "device_common.h"

namespace switchyard::kernels {
namespace {

constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 2;
constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;
constexpr int kLanes = 32;

template <int kVec>
struct Vec;
template <>
struct Vec<1> {
  __device__ static void Load(const float* p, float* v) { v[0] = *p; }
};
template <>
struct Vec<2> {
  __device__ static void Load(const float* p, float* v) {
    const float2 x = *reinterpret_cast<const float2*>(p);
    v[0] = x.x, v[1] = x.y;
  }
};
template <>
struct Vec<4> {
  __device__ static void Load(const float* p, float* v) {
    const float4 x = *reinterpret_cast<const float4*>(p);
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
  }
};

__device__ __forceinline__ float Dot4(const float4& a, const float4& b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

struct alignas(8) Half4 {
  __half x[4];
};

// Elements d .. d+3 of a row as float, zeros past `depth`. kVectorLoads: one 16-byte (fp32) or 8-byte
// (fp16) load -- the launch checked that depth, leading dimensions, head strides and base pointers
// keep every quad aligned; else four guarded loads.
template <typename T, bool kVectorLoads>
__device__ __forceinline__ float4 LoadQuad(const T* row, int d, int depth) {
  if constexpr (kVectorLoads) {
    if (d >= depth) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if constexpr (std::is_same_v<T, float>) {
      return *reinterpret_cast<const float4*>(row + d);
    } else {
      const Half4 h = *reinterpret_cast<const Half4*>(row + d);
      return make_float4(ToFloat(h.x[0]), ToFloat(h.x[1]), ToFloat(h.x[2]), ToFloat(h.x[3]));
    }
  } else {
    float x[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) x[e] = d + e < depth ? ToFloat(row[d + e]) : 0.0f;
    return make_float4(x[0], x[1], x[2], x[3]);
  }
}

__device__ __forceinline__ void StoreQuad(float* p, const float4& v) { *reinterpret_cast<float4*>(p) = v; }

template <typename T, int kVec, bool kVectorLoads>
__global__ void __launch_bounds__(256) AttentionKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                                                      const void* __restrict__ mask, T* __restrict__ out, AttentionShape s) {
  constexpr int kDepth = kLanes * kVec;       // padded depth
  constexpr int kKeysPerLane = 4 / kVec;      // shared memory stays ~38 KB at every depth
  constexpr int kTile = kLanes * kKeysPerLane;
  constexpr int kKStride = kDepth + 4;
  __shared__ __align__(16) float ks[kTile * kKStride];
  __shared__ __align__(16) float vs[kTile * kDepth];
  __shared__ __align__(16) float qs[kRowsPerBlock * kDepth];
  __shared__ __align__(16) float ps[kWarps][kTile][kRowsPerWarp];

  // Flat head -> (batch, head in batch); K/V heads shared by kv_group query heads.
  const int64_t flat = blockIdx.x;
  const int64_t per_batch = s.heads_per_batch > 0 ? s.heads_per_batch : s.heads;
  const int64_t batch = flat / per_batch, head = flat % per_batch, kv_head = head / s.kv_group;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kRowsPerBlock;
  // Causal: no row of this block sees a key past its last row, so later tiles are skipped.
  const int64_t key_end = s.causal && row0 + kRowsPerBlock < s.seq_k ? row0 + kRowsPerBlock : s.seq_k;
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const bool active = lane < kLanes;
  const int depth = static_cast<int>(s.depth);
  const T* qh = q + batch * s.q_batch + head * s.q_head;
  const T* kh = k + batch * s.k_batch + kv_head * s.k_head;
  const T* vh = v + batch * s.v_batch + kv_head * s.v_head;
  const int64_t m_base = batch * s.m_batch + head * s.m_head;
  const T* mask_t = static_cast<const T*>(mask);
  const uint8_t* mask_b = static_cast<const uint8_t*>(mask);
  const int local0 = warp * kRowsPerWarp;
  int64_t rows[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) rows[r] = row0 + local0 + r;

  // The block's query rows, scaled once here rather than every score; zeros past the depth.
  constexpr int kQuadsPerRow = kDepth / 4;
  for (int i = threadIdx.x; i < kRowsPerBlock * kQuadsPerRow; i += blockDim.x) {
    const int r = i / kQuadsPerRow, d = (i % kQuadsPerRow) * 4;
    const int64_t row = row0 + r;
    float4 x = row < s.seq_q ? LoadQuad<T, kVectorLoads>(qh + row * s.q_ld, d, depth) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    x.x *= s.scale, x.y *= s.scale, x.z *= s.scale, x.w *= s.scale;
    StoreQuad(&qs[r * kDepth + d], x);
  }
  float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kVec];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[r][e] = 0.0f;
  }

  // A tile's loads go to registers one tile ahead: the next tile's latency overlaps this one's
  // arithmetic. All of a tile's loads are issued before any is used (a load-store loop waits out
  // each load in turn, which cost most of the kernel's time).
  constexpr int kQuads = kTile * kQuadsPerRow;
  constexpr int kPerThread = (kQuads + kLanes * kWarps - 1) / (kLanes * kWarps);  // at 32-wide warps; wider ones leave some empty
  float4 kq[kPerThread], vq[kPerThread];
  const auto load_tile = [&](int64_t key0) {
    const int64_t tile = key_end - key0 < kTile ? key_end - key0 : kTile;
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      const int i = threadIdx.x + u * blockDim.x;
      const int j = i / kQuadsPerRow, d = (i % kQuadsPerRow) * 4;
      const bool in = i < kQuads && j < tile;
      kq[u] = in ? LoadQuad<T, kVectorLoads>(kh + (key0 + j) * s.k_ld, d, depth) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      vq[u] = in ? LoadQuad<T, kVectorLoads>(vh + (key0 + j) * s.v_ld, d, depth) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  };
  load_tile(0);

  for (int64_t key0 = 0; key0 < key_end; key0 += kTile) {
    const int tile = static_cast<int>(key_end - key0 < kTile ? key_end - key0 : kTile);
    __syncthreads();  // the previous tile is consumed (and, the first time, qs is written)
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      const int i = threadIdx.x + u * blockDim.x;
      if (i >= kQuads) break;
      const int j = i / kQuadsPerRow, d = (i % kQuadsPerRow) * 4;
      StoreQuad(&ks[j * kKStride + d], kq[u]);
      StoreQuad(&vs[j * kDepth + d], vq[u]);
    }
    __syncthreads();
    if (key0 + kTile < key_end) load_tile(key0 + kTile);
    if (rows[0] >= s.seq_q) continue;  // this warp has no rows; it still meets every __syncthreads

    // Scores: kRowsPerWarp x kKeysPerLane independent dot products per lane.
    float sc[kRowsPerWarp][kKeysPerLane] = {};
    if (active) {
#pragma unroll 4
      for (int d = 0; d < kDepth; d += 4) {
        float4 qv[kRowsPerWarp];
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) qv[r] = *reinterpret_cast<const float4*>(&qs[(local0 + r) * kDepth + d]);
#pragma unroll
        for (int kk = 0; kk < kKeysPerLane; ++kk) {
          const float4 kv = *reinterpret_cast<const float4*>(&ks[(lane + kk * kLanes) * kKStride + d]);
#pragma unroll
          for (int r = 0; r < kRowsPerWarp; ++r) sc[r][kk] += Dot4(qv[r], kv);
        }
      }
    }
    // Online softmax per row; the tile's probabilities go to ps for P.V.
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int kk = 0; kk < kKeysPerLane; ++kk) {
        const int key = lane + kk * kLanes;
        const int64_t j = key0 + key;
        bool valid = active && key < tile && rows[r] < s.seq_q;
        if (valid && s.causal && j > rows[r]) valid = false;
        if (valid && mask != nullptr) {
          if (s.mask_cols > 0 && j >= s.mask_cols) {
            valid = false;
          } else {
            const int64_t at = m_base + rows[r] * s.m_row + j * s.m_col;
            if (!s.mask_bool) sc[r][kk] += ToFloat(mask_t[at]);
            else if (mask_b[at] == 0) valid = false;
          }
        }
        if (!valid) sc[r][kk] = -INFINITY;
        tile_max = CombineValues<Combine::kMax>(tile_max, sc[r][kk]);
      }
      const float m_new = CombineValues<Combine::kMax>(m[r], WarpReduce<Combine::kMax>(tile_max));
      // No finite maximum yet (every key so far masked with -inf): shift by 0, so exp() gives 0
      // rather than the NaN of -inf - -inf (the Softmax kernel's rule).
      const float shift = isfinite(m_new) ? m_new : 0.0f;
      float sum = 0.0f;
#pragma unroll
      for (int kk = 0; kk < kKeysPerLane; ++kk) {
        const float p = sc[r][kk] == -INFINITY ? 0.0f : expf(sc[r][kk] - shift);
        sum += p;
        if (active) ps[warp][lane + kk * kLanes][r] = p;
      }
      const float rescale = expf(m[r] - shift);  // 0 on the first tile (m = -inf)
      l[r] = l[r] * rescale + WarpReduce<Combine::kSum>(sum);
      m[r] = m_new;
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[r][e] *= rescale;
    }
    SwitchyardSyncWarp();
    if (active) {
#pragma unroll 4
      for (int j = 0; j < tile; ++j) {
        float vv[kVec];
        Vec<kVec>::Load(&vs[j * kDepth + lane * kVec], vv);
        const float2 p = *reinterpret_cast<const float2*>(&ps[warp][j][0]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          acc[0][e] += p.x * vv[e];
          acc[1][e] += p.y * vv[e];
        }
      }
    }
  }

  if (!active) return;
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    if (rows[r] >= s.seq_q) break;
    const float inv = s.empty_rows_zero && l[r] == 0.0f ? 0.0f : 1.0f / l[r];
    T* o = out + batch * s.o_batch + head * s.o_head + rows[r] * s.o_ld;
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const int d = lane * kVec + e;
      if (d < depth) o[d] = FromFloat<T>(acc[r][e] * inv);
    }
  }
}

static_assert(kRowsPerWarp == 2, "P.V reads both rows' probabilities as one float2");

}  // namespace

hipError_t LaunchAttention(DType dtype, const void* q, const void* k, const void* v, const void* mask, void* out,
                           const AttentionShape& s, hipStream_t stream) {
  if (s.heads < 0 || s.seq_q < 0 || s.seq_k < 0 || s.depth < 0 || s.depth > kAttentionMaxDepth) return hipErrorInvalidValue;
  if (s.kv_group < 1 || s.heads_per_batch < 0 || (s.heads_per_batch > 0 && s.heads % s.heads_per_batch != 0)) return hipErrorInvalidValue;
  if (s.heads == 0 || s.seq_q == 0 || s.depth == 0) return hipSuccess;
  if (s.seq_k == 0) return hipErrorInvalidValue;  // a softmax over no keys has no value
  const int64_t row_blocks = (s.seq_q + kRowsPerBlock - 1) / kRowsPerBlock;
  if (s.heads > 2147483647 || row_blocks > 65535) return hipErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(s.heads), static_cast<unsigned>(row_blocks));
  const unsigned threads = static_cast<unsigned>(kWarps * CurrentWarpSize());
  hipError_t status = hipErrorInvalidValue;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* tq = static_cast<const T*>(q);
    const T* tk = static_cast<const T*>(k);
    const T* tv = static_cast<const T*>(v);
    T* to = static_cast<T*>(out);
    // Quads of four elements load as one access when nothing can misalign them.
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % (4 * sizeof(T)) == 0; };
    const bool vector = s.depth % 4 == 0 && s.q_ld % 4 == 0 && s.k_ld % 4 == 0 && s.v_ld % 4 == 0 && s.q_head % 4 == 0 &&
                        s.k_head % 4 == 0 && s.v_head % 4 == 0 && s.q_batch % 4 == 0 && s.k_batch % 4 == 0 &&
                        s.v_batch % 4 == 0 && aligned(q) && aligned(k) && aligned(v);
    auto launch = [&](auto vec, auto vector_loads) {
      AttentionKernel<T, decltype(vec)::value, decltype(vector_loads)::value><<<grid, threads, 0, stream>>>(tq, tk, tv, mask, to, s);
    };
    auto by_depth = [&](auto vector_loads) {
      if (s.depth <= kLanes) launch(std::integral_constant<int, 1>{}, vector_loads);
      else if (s.depth <= 2 * kLanes) launch(std::integral_constant<int, 2>{}, vector_loads);
      else launch(std::integral_constant<int, 4>{}, vector_loads);
    };
    if (vector) by_depth(std::true_type{});
    else by_depth(std::false_type{});
    status = hipGetLastError();
  });
  return status;
}

}  // namespace switchyard::kernels
