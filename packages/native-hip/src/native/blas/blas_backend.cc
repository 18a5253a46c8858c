// The BLAS seam's backend, chosen at build time. CMake defines SWITCHYARD_HAVE_CUBLAS only when it
// found cuBLAS's header and library (linked), SWITCHYARD_HAVE_ROCBLAS when it found rocblas.h
// (the library is loaded at run time, see RocblasApi); __has_include guards against a define
// without the header.
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "blas.h"
#include "runtime/stream_handles.h"

#if defined(SWITCHYARD_GPU_NVIDIA) && defined(SWITCHYARD_HAVE_CUBLAS) && __has_include(<cublas_v2.h>)
#define SWITCHYARD_BLAS_CUBLAS 1
#include <cublas_v2.h>

#include <cstdlib>

#include "gemm_lt.h"

#include "runtime/device_arena.h"
#include "runtime/runtime.h"
#elif !defined(SWITCHYARD_GPU_NVIDIA) && defined(SWITCHYARD_HAVE_ROCBLAS) && __has_include(<rocblas/rocblas.h>)
#define SWITCHYARD_BLAS_ROCBLAS 1
#include <dlfcn.h>
#include <rocblas/rocblas.h>

#include <cstdlib>
#include <vector>
#endif

namespace switchyard::blas {

#if defined(SWITCHYARD_BLAS_CUBLAS)

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

#elif defined(SWITCHYARD_BLAS_ROCBLAS)

namespace {

// The rocBLAS entry points this file calls, bound with dlopen/dlsym on first use: the addon builds
// with rocblas.h alone and loads on machines without rocBLAS (the seam then says why). The types
// come from the header, so a signature change is a compile error, not a crash.
struct RocblasApi {
  decltype(&::rocblas_create_handle) create_handle = nullptr;
  decltype(&::rocblas_destroy_handle) destroy_handle = nullptr;
  decltype(&::rocblas_set_stream) set_stream = nullptr;
  decltype(&::rocblas_status_to_string) status_to_string = nullptr;
  // Member names differ from rocBLAS's: rocblas.h also defines rocblas_gemm_ex as a function-like macro.
  decltype(&::rocblas_gemm_ex) gemm_ex = nullptr;
  decltype(&::rocblas_gemm_strided_batched_ex) gemm_strided_batched_ex = nullptr;
  std::string failure;  // why rocBLAS is unusable; empty once every symbol is bound
};

// Where to look, in order: SWITCHYARD_ROCBLAS_LIBRARY (environment), the library CMake found at
// build time, $ROCM_PATH/lib and /opt/rocm/lib, then the loader's search path (LD_LIBRARY_PATH,
// the addon's RUNPATH, ld.so.cache) by soname: ROCm 6 (.so.4), ROCm 5 (.so.3), Debian (.so.0).
std::vector<std::string> LibraryCandidates() {
  std::vector<std::string> names;
  if (const char* env = std::getenv("SWITCHYARD_ROCBLAS_LIBRARY"); env != nullptr && *env != '\0') names.emplace_back(env);
#if defined(SWITCHYARD_ROCBLAS_LIBRARY)
  names.emplace_back(SWITCHYARD_ROCBLAS_LIBRARY);
#endif
  if (const char* rocm = std::getenv("ROCM_PATH"); rocm != nullptr && *rocm != '\0') names.push_back(std::string(rocm) + "/lib/librocblas.so");
  names.emplace_back("/opt/rocm/lib/librocblas.so");
  for (const char* soname : {"librocblas.so", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0"}) names.emplace_back(soname);
  return names;
}

template <class Fn>
bool Bind(void* library, const char* symbol, Fn* out, std::string* failure) {
  *out = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (*out == nullptr && failure->empty()) failure->assign(std::string("the loaded rocBLAS has no ") + symbol);
  return *out != nullptr;
}

const RocblasApi& Api() {
  static const RocblasApi* const api = [] {
    auto* result = new RocblasApi();  // leaked on purpose, like the handles
    void* library = nullptr;
    std::string last_error;
    for (const std::string& name : LibraryCandidates()) {
      library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) break;
      const char* error = dlerror();
      // Keep the first error about a library that exists (a missing dependency, a wrong ELF class)
      // over the later "No such file" ones: it is the one that says what to fix.
      const std::string message = error != nullptr ? error : name + ": not found";
      if (last_error.empty() || (last_error.find("No such file") != std::string::npos && message.find("No such file") == std::string::npos)) {
        last_error = message;
      }
    }
    if (library == nullptr) {
      result->failure =
          "built with <rocblas/rocblas.h>, but librocblas could not be loaded at run time (" + last_error +
          "): install rocBLAS (ROCm, or apt-get install librocblas0) or set SWITCHYARD_ROCBLAS_LIBRARY to its path";
      return result;
    }
    std::string& failure = result->failure;
    Bind(library, "rocblas_create_handle", &result->create_handle, &failure);
    Bind(library, "rocblas_destroy_handle", &result->destroy_handle, &failure);
    Bind(library, "rocblas_set_stream", &result->set_stream, &failure);
    Bind(library, "rocblas_status_to_string", &result->status_to_string, &failure);
    Bind(library, "rocblas_gemm_ex", &result->gemm_ex, &failure);
    Bind(library, "rocblas_gemm_strided_batched_ex", &result->gemm_strided_batched_ex, &failure);
    return result;
  }();
  return *api;
}

std::mutex& HandleMutex() {
  static std::mutex mutex;
  return mutex;
}

Status RocblasFailure(const char* call, rocblas_status status) {
  return Status{false, std::string(call) + ": " + Api().status_to_string(status)};
}

// Handles by (device, stream); a plan that releases its stream releases its handle (ReleaseStream).
std::map<std::pair<int, hipStream_t>, rocblas_handle>* Handles() {
  static auto* handles = new std::map<std::pair<int, hipStream_t>, rocblas_handle>();
  return handles;
}

// Under HandleMutex. rocBLAS keeps its own device workspace per handle.
Status HandleFor(int device, hipStream_t stream, rocblas_handle* out) {
  auto* handles = Handles();
  auto it = handles->find({device, stream});
  if (it != handles->end()) {
    *out = it->second;
    return Status{};
  }
  hipError_t gpu = hipSetDevice(device);
  if (gpu != hipSuccess) return Status{false, std::string("hipSetDevice: ") + hipGetErrorName(gpu)};
  rocblas_handle handle;
  rocblas_status status = Api().create_handle(&handle);
  if (status != rocblas_status_success) return RocblasFailure("rocblas_create_handle", status);
  status = Api().set_stream(handle, stream);
  if (status != rocblas_status_success) return RocblasFailure("rocblas_set_stream", status);
  handles->emplace(std::make_pair(device, stream), handle);
  *out = handle;
  return Status{};
}

}  // namespace

const char* Unavailable() {
  const RocblasApi& api = Api();
  return api.failure.empty() ? nullptr : api.failure.c_str();
}
const char* BackendName() { return "rocBLAS"; }

void ReleaseStream(int device, hipStream_t stream) {
  runtime::EraseStreamHandle(HandleMutex(), Handles(), device, stream, [](rocblas_handle& h) {
    if (Api().destroy_handle != nullptr) (void)Api().destroy_handle(h);
  });
}

Status Gemm(int device, hipStream_t stream, const GemmDesc& input) {
  GemmDesc d = input;
  Status checked = Normalize(&d);
  if (!checked.ok) return checked;
  if (d.c_source != nullptr || d.relu) return Status{false, "gemm: the plain path has no separate C or ReLU epilogue"};
  if (const char* why = Unavailable(); why != nullptr) return Status{false, std::string("gemm: ") + why};
  if (d.m == 0 || d.n == 0) return Status{};
  std::lock_guard<std::mutex> lock(HandleMutex());
  rocblas_handle handle = nullptr;
  Status got = HandleFor(device, stream, &handle);
  if (!got.ok) return got;
  const RocblasApi& api = Api();
  // fp16 in and out with fp32 math: the compute type is f32, so alpha and beta are floats.
  const rocblas_datatype type = d.dtype == DataType::kFloat16 ? rocblas_datatype_f16_r : rocblas_datatype_f32_r;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap operands and m/n.
  const rocblas_operation op_b = d.trans_b ? rocblas_operation_transpose : rocblas_operation_none;
  const rocblas_operation op_a = d.trans_a ? rocblas_operation_transpose : rocblas_operation_none;
  const auto n = static_cast<rocblas_int>(d.n), m = static_cast<rocblas_int>(d.m), k = static_cast<rocblas_int>(d.k);
  const auto lda = static_cast<rocblas_int>(d.lda), ldb = static_cast<rocblas_int>(d.ldb), ldc = static_cast<rocblas_int>(d.ldc);
  // D = alpha * op(B) op(A) + beta * C with D == C: in place, as cuBLAS does.
  rocblas_status status;
  if (d.batch == 1) {
    status = api.gemm_ex(handle, op_b, op_a, n, m, k, &d.alpha, d.b, type, ldb, d.a, type, lda, &d.beta, d.c, type, ldc, d.c,
                         type, ldc, rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0);
    if (status != rocblas_status_success) return RocblasFailure("rocblas_gemm_ex", status);
  } else {
    status = api.gemm_strided_batched_ex(handle, op_b, op_a, n, m, k, &d.alpha, d.b, type, ldb, d.stride_b, d.a, type, lda,
                                         d.stride_a, &d.beta, d.c, type, ldc, d.stride_c, d.c, type, ldc, d.stride_c,
                                         static_cast<rocblas_int>(d.batch), rocblas_datatype_f32_r,
                                         rocblas_gemm_algo_standard, 0, 0);
    if (status != rocblas_status_success) return RocblasFailure("rocblas_gemm_strided_batched_ex", status);
  }
  return Status{};
}

// rocBLAS has no fused bias epilogue here and its gemm_ex picks its own solution: launches take the
// plain path, and the caller adds a bias. (hipBLASLt would be the counterpart of cublasLt's search.)
Status PrepareGemm(int, hipStream_t, const GemmDesc& input, const void*, PreparedGemm* out, const std::string&, GemmTuning) {
  *out = PreparedGemm{};
  out->choice = "rocblas_gemm_ex";
  GemmDesc d = input;
  return Normalize(&d);
}

Status RunPreparedGemm(const PreparedGemm&, int device, hipStream_t stream, const GemmDesc& desc, const void*) {
  return Gemm(device, stream, desc);
}

#else  // no vendor BLAS in this build

#if defined(SWITCHYARD_GPU_NVIDIA)
#define SWITCHYARD_BLAS_MISSING "built without <cublas_v2.h> headers (or libcublas): install the CUDA toolkit's cuBLAS and rebuild"
#else
#define SWITCHYARD_BLAS_MISSING                                                                              \
  "built without <rocblas/rocblas.h> headers: install rocBLAS's headers (ROCm, or apt-get install librocblas-dev; " \
  "or point SWITCHYARD_ROCM_PATH at them) and rebuild"
#endif

const char* Unavailable() { return SWITCHYARD_BLAS_MISSING; }
const char* BackendName() { return "none"; }
void ReleaseStream(int, hipStream_t) {}

Status Gemm(int, hipStream_t, const GemmDesc& input) {
  GemmDesc d = input;
  Status checked = Normalize(&d);
  if (!checked.ok) return checked;
  return Status{false, std::string("gemm: ") + SWITCHYARD_BLAS_MISSING};
}

Status PrepareGemm(int, hipStream_t, const GemmDesc&, const void*, PreparedGemm* out, const std::string&, GemmTuning) {
  *out = PreparedGemm{};
  return Status{false, std::string("gemm: ") + SWITCHYARD_BLAS_MISSING};
}

Status RunPreparedGemm(const PreparedGemm&, int, hipStream_t, const GemmDesc& desc, const void*) { return Gemm(0, nullptr, desc); }

#endif

}  // namespace switchyard::blas
