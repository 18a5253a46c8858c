// The BLAS seam on NVIDIA: cuBLAS (see blas.h), with cublasLt's GEMM search (gemm_lt.cc) when its
// header and library were found too. CMakeLists.txt compiles this file instead of blas_none.cc only
// when it found cuBLAS's header and library (linked; SWITCHYARD_HAVE_CUBLAS).
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "blas.h"
#include "runtime/stream_handles.h"

#include <cublas_v2.h>

#include <cstdlib>

#include "gemm_lt.h"

#include "runtime/device_arena.h"
#include "runtime/runtime.h"

namespace switchyard::blas {

namespace {

// cuBLAS's recommended workspace on Hopper; smaller GPUs use less of it.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

struct Handle {
  cublasHandle_t handle = nullptr;
  std::shared_ptr<runtime::DeviceArena> arena;  // keeps the workspace's arena alive
  void* workspace = nullptr;
};

std::mutex& HandleMutex() {
  static std::mutex mutex;
  return mutex;
}

Status CublasFailure(const char* call, cublasStatus_t status) {
  return Status{false, std::string(call) + ": " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")"};
}

// Handles by (device, stream). Never destroyed as a whole: handles must not be destroyed after the
// runtime shuts down; a plan that releases its stream releases its stream's handle (ReleaseStream).
std::map<std::pair<int, hipStream_t>, Handle>* Handles() {
  static auto* handles = new std::map<std::pair<int, hipStream_t>, Handle>();
  return handles;
}

// Under HandleMutex. Map nodes never move, so the pointer stays valid until ReleaseStream.
Status HandleFor(int device, hipStream_t stream, const Handle** out) {
  auto* handles = Handles();
  auto it = handles->find({device, stream});
  if (it != handles->end()) {
    *out = &it->second;
    return Status{};
  }
  hipError_t gpu = hipSetDevice(device);
  if (gpu != hipSuccess) return Status{false, std::string("cudaSetDevice: ") + hipGetErrorName(gpu)};
  Handle entry;
  const size_t free_before = runtime::DeviceFreeBytes(device);
  cublasStatus_t status = cublasCreate(&entry.handle);
  if (status != CUBLAS_STATUS_SUCCESS) return CublasFailure("cublasCreate", status);
  status = cublasSetStream(entry.handle, stream);
  if (status != CUBLAS_STATUS_SUCCESS) return CublasFailure("cublasSetStream", status);
  const size_t free_after = runtime::DeviceFreeBytes(device);
  if (free_before > 0 && free_after > 0) runtime::RecordHandleBytes(device, runtime::HandleLibrary::kBlas, free_before > free_after ? free_before - free_after : 0);
  entry.arena = runtime::DefaultArena(device);
  runtime::ArenaResult block = entry.arena->Allocate(kWorkspaceBytes);
  if (block.failure == runtime::ArenaFailure::kNone) {
    entry.workspace = reinterpret_cast<void*>(block.address);
    status = cublasSetWorkspace(entry.handle, entry.workspace, kWorkspaceBytes);
    if (status != CUBLAS_STATUS_SUCCESS) return CublasFailure("cublasSetWorkspace", status);
  }  // else cuBLAS falls back to its own (smaller) workspace: slower, still correct
  *out = &handles->emplace(std::make_pair(device, stream), std::move(entry)).first->second;
  return Status{};
}

}  // namespace

const char* Unavailable() { return nullptr; }
const char* BackendName() { return "cuBLAS"; }

void ReleaseStream(int device, hipStream_t stream) {
  runtime::EraseStreamHandle(HandleMutex(), Handles(), device, stream, [](Handle& h) {
    if (h.handle != nullptr) (void)cublasDestroy(h.handle);
    if (h.workspace != nullptr) h.arena->ReleaseMemory(h.workspace);
  });
}

Status Gemm(int device, hipStream_t stream, const GemmDesc& input) {
  GemmDesc d = input;
  Status checked = Normalize(&d);
  if (!checked.ok) return checked;
  if (d.c_source != nullptr || d.relu) return Status{false, "gemm: the plain path has no separate C or ReLU epilogue"};
  if (d.m == 0 || d.n == 0) return Status{};
  std::lock_guard<std::mutex> lock(HandleMutex());
  const Handle* entry = nullptr;
  Status got = HandleFor(device, stream, &entry);
  if (!got.ok) return got;
  cublasHandle_t handle = entry->handle;
  const cudaDataType type = d.dtype == DataType::kFloat16 ? CUDA_R_16F : CUDA_R_32F;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap operands and m/n.
  const cublasOperation_t op_b = d.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = d.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t status;
  const cublasComputeType_t compute = d.tf32 && d.dtype == DataType::kFloat32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (d.batch == 1) {
    status = cublasGemmEx(handle, op_b, op_a, static_cast<int>(d.n), static_cast<int>(d.m), static_cast<int>(d.k), &d.alpha,
                          d.b, type, static_cast<int>(d.ldb), d.a, type, static_cast<int>(d.lda), &d.beta, d.c, type,
                          static_cast<int>(d.ldc), compute, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) return CublasFailure("cublasGemmEx", status);
  } else {
    status = cublasGemmStridedBatchedEx(handle, op_b, op_a, static_cast<int>(d.n), static_cast<int>(d.m),
                                        static_cast<int>(d.k), &d.alpha, d.b, type, static_cast<int>(d.ldb), d.stride_b, d.a,
                                        type, static_cast<int>(d.lda), d.stride_a, &d.beta, d.c, type, static_cast<int>(d.ldc),
                                        d.stride_c, static_cast<int>(d.batch), compute, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) return CublasFailure("cublasGemmStridedBatchedEx", status);
  }
  return Status{};
}

Status PrepareGemm(int device, hipStream_t stream, const GemmDesc& input, const void* bias, PreparedGemm* out, const std::string& cache_dir,
                   GemmTuning tuning) {
  *out = PreparedGemm{};
  out->choice = "cublasGemmEx";
  GemmDesc d = input;
  Status checked = Normalize(&d);
  if (!checked.ok || d.m == 0 || d.n == 0 || d.k == 0) return checked;
#if defined(SWITCHYARD_BLAS_CUBLASLT)
  if (const char* search = std::getenv("SWITCHYARD_GEMM_SEARCH"); search != nullptr && std::string(search) == "0") return Status{};
  if (tuning == GemmTuning::kOff) {
    out->choice = "cublasGemmEx (tuning off)";
    return Status{};
  }
  void* workspace = nullptr;
  {
    std::lock_guard<std::mutex> lock(HandleMutex());
    const Handle* entry = nullptr;
    Status got = HandleFor(device, stream, &entry);
    if (!got.ok) return got;
    workspace = entry->workspace;
  }
  // The baseline is what the plain path costs the step. With a bias that is two passes over C more
  // than a candidate with the bias in its epilogue: the step broadcasts the bias into C first, and
  // cublasGemmEx reads C back (beta 1). The baseline pays for both (a memset stands in for the
  // broadcast), or a fused candidate loses to a plain GEMM that is faster only without them (BERT-base's
  // [128x3072]x[3072x768] did: 23.3 vs 23.5 us, before the ~3 us of the two passes).
  const size_t c_bytes = static_cast<size_t>((d.m - 1) * d.ldc + d.n) * (d.dtype == DataType::kFloat16 ? 2 : 4);
  GemmDesc onto_c = input;
  onto_c.beta = 1.0f;
  const auto baseline = [&]() -> Status {
    if (bias == nullptr || d.batch != 1) return Gemm(device, stream, input);
    if (hipMemsetAsync(d.c, 0, c_bytes, stream) != hipSuccess) return Status{false, "cudaMemsetAsync failed"};
    return Gemm(device, stream, onto_c);
  };
  // The stream's handle and cublasLt share one workspace: both queue on this stream, one at a time.
  Status searched = lt::Prepare(device, stream, d, bias, workspace, kWorkspaceBytes, cache_dir, tuning == GemmTuning::kSearch, baseline, out);
  if (!searched.ok) {
    // cublasLt refused the problem: the plain path still serves it.
    *out = PreparedGemm{};
    out->choice = "cublasGemmEx (" + searched.message + ")";
  }
#endif
  return Status{};
}

Status RunPreparedGemm(const PreparedGemm& prepared, int device, hipStream_t stream, const GemmDesc& desc, const void* bias) {
#if defined(SWITCHYARD_BLAS_CUBLASLT)
  if (prepared.backend != nullptr) return lt::Run(prepared, stream, desc);
#endif
  return Gemm(device, stream, desc);
}

}  // namespace switchyard::blas
