// The BLAS seam on AMD: rocBLAS (see blas.h). CMakeLists.txt compiles this file instead of
// blas_none.cc only when it found <rocblas/rocblas.h> (SWITCHYARD_HAVE_ROCBLAS); the library is
// loaded at run time (see RocblasApi).
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "blas.h"
#include "runtime/stream_handles.h"

#include <dlfcn.h>
#include <rocblas/rocblas.h>

#include <cstdlib>
#include <vector>

namespace switchyard::blas {

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

}  // namespace switchyard::blas
