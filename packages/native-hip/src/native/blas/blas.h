// The BLAS seam: GEMM on device buffers through the vendor library found at build time -- cuBLAS
// on NVIDIA, rocBLAS on AMD -- or, when the build found no headers/library, a seam that only
// reports why (Unavailable()), so the EP can decline the ops that need it with that reason. One file
// per backend (blas_cublas.cc, blas_rocblas.cc, blas_none.cc): CMakeLists.txt compiles the one whose
// library it found; blas_common.cc is shared by all three.
//
// Layout is ROW-MAJOR, as ONNX tensors are: C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C,
// where op(X) = X or X^T. The row-major problem is handed to the column-major library as
// C^T = op(B)^T op(A)^T, with no copies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vendor/gpu.h"

namespace switchyard::blas {

enum class DataType : int {
  kFloat32 = 0,  // fp32 in and out, fp32 math (no TF32)
  kFloat16 = 1,  // fp16 in and out, fp32 accumulation
};

struct GemmDesc {
  DataType dtype = DataType::kFloat32;
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  // Leading dimensions in elements (row-major: the distance between rows); 0 = packed
  // (lda = trans_a ? m : k, ldb = trans_b ? k : n, ldc = n).
  int64_t lda = 0, ldb = 0, ldc = 0;
  // batch > 1: strided-batched GEMM; strides in elements between consecutive matrices
  // (a stride of 0 broadcasts one matrix to every batch, e.g. MatMul's [B,M,K] x [K,N]).
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // Prepared GEMMs only (PrepareGemm), honoured when PreparedGemm::epilogue_fused says so: C read from
  // `c_source` (beta != 0; same layout as C) while the result goes to `c`, and max(0, .) applied to the
  // result. The plain path has neither and refuses a description that asks for them.
  const void* c_source = nullptr;
  bool relu = false;
  // float32 only: both operands hold values TF32 represents exactly (the split operands of a 3xTF32
  // product: the MatMulSplitTf32 step), so the library may multiply them on TF32 tensor cores (cuBLAS
  // CUBLAS_COMPUTE_32F_FAST_TF32) without changing the result. rocBLAS computes them in fp32.
  bool tf32 = false;
};

struct Status {
  bool ok = true;
  std::string message;  // "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE (...)" when !ok
};

// nullptr when GEMM works in this build; else why not, e.g. "built without <cublas_v2.h> headers".
const char* Unavailable();
// "cuBLAS" | "rocBLAS" | "none".
const char* BackendName();

// Queues the GEMM on `stream` (asynchronous; device memory only). Bad shapes/leading dimensions
// give !ok without launching. Safe from any thread: the library handle for (device, stream) is
// created on first use and calls on it are serialized. The handle's workspace (cuBLAS) comes from
// the device's DefaultArena.
Status Gemm(int device, hipStream_t stream, const GemmDesc& desc);

// Destroys the library handle (and gives back its workspace) made for (device, stream), if any. Call
// before destroying the stream, once nothing is queued on it: a plan that owned the stream does.
void ReleaseStream(int device, hipStream_t stream);

// Checks shapes and fills packed leading dimensions; exposed for the JS entry and tests.
Status Normalize(GemmDesc* desc);

// A GEMM problem prepared once (when a plan is built) for every later launch with the same shapes and
// pointers: on cuBLAS with cublasLt, the algorithm is chosen by timing the library's heuristic
// candidates (with split-K variants) against cublasGemmEx's default; elsewhere, or when the default
// wins, launches take the plain Gemm path. `bias` (row-major: one value per column of C, added to
// every row) is fused into the library's epilogue when the chosen path can; otherwise the caller adds it.
struct PreparedGemm {
  bool bias_fused = false;
  bool epilogue_fused = false;  // the desc's c_source / relu ride the chosen algorithm (cuBLASLt only)
  std::string choice;              // what was chosen and why, for plan descriptions and logs
  std::shared_ptr<void> backend;  // the backend's own state (nullptr: plain Gemm)
};

// What PrepareGemm may do (the ROCm EP's tunableOpEnable / tunableOpTuningEnable): time the candidates
// when the cache has no answer (kSearch), take only what the cache holds and otherwise the plain path
// (kCachedOnly), or take the plain path outright (kOff, as SWITCHYARD_GEMM_SEARCH=0).
enum class GemmTuning : int { kSearch = 0, kCachedOnly = 1, kOff = 2 };

// `desc` must carry the launch's pointers (a search runs the GEMM on them: C is overwritten).
// Synchronizes `stream`; not capturable. SWITCHYARD_GEMM_SEARCH=0 turns the search off (and with it
// the cache: neither read nor written). A choice is kept in the on-disk algorithm cache under
// `cache_dir` ("" = the convolution cache's default folder, "-" = memory only), so a later process
// with the same GPU and library takes it without timing.
Status PrepareGemm(int device, hipStream_t stream, const GemmDesc& desc, const void* bias, PreparedGemm* out,
                   const std::string& cache_dir = "", GemmTuning tuning = GemmTuning::kSearch);
// Queues a prepared GEMM (asynchronous, capturable); `desc` and `bias` as given to PrepareGemm.
Status RunPreparedGemm(const PreparedGemm& prepared, int device, hipStream_t stream, const GemmDesc& desc, const void* bias);

}  // namespace switchyard::blas
