// The BLAS seam without a vendor library (see blas.h): CMakeLists.txt compiles this file when it
// found neither cuBLAS (NVIDIA) nor rocBLAS's header (AMD), and every call reports why.
#include <string>

#include "blas.h"

namespace switchyard::blas {

// The platform picks which library's absence to name; both builds compile this same file.
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

}  // namespace switchyard::blas
