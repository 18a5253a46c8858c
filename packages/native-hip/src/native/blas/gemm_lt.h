// cublasLt's side of PrepareGemm (blas.h), compiled into the cuBLAS backend only when cublasLt's
// header and library were found (SWITCHYARD_HAVE_CUBLASLT). At batch 1 a GEMM of BERT-base
// ([128x768] x [768x3072]) fills a fraction of an H200's 132 SMs with cublasGemmEx's default tile,
// so the algorithm is chosen by measurement: cublasLt's heuristic candidates plus split-K variants
// of the best of them, each timed on the problem's own buffers, against cublasGemmEx's default.
// The choice is remembered in the algorithm cache (dnn/algo_cache.h): in memory for the process and
// in a file per device arch and cublasLt version for later processes, which then skip the timing.
#pragma once

#include <functional>

#include "blas.h"

#if defined(SWITCHYARD_GPU_NVIDIA) && defined(SWITCHYARD_HAVE_CUBLAS) && defined(SWITCHYARD_HAVE_CUBLASLT) && \
    __has_include(<cublasLt.h>)
#define SWITCHYARD_BLAS_CUBLASLT 1

namespace switchyard::blas::lt {

// `d` is normalized (Normalize) and non-empty. `legacy` queues the same GEMM through cublasGemmEx
// (the baseline every candidate must beat). `workspace` is the stream's cuBLAS workspace. `cache_dir`
// as ConvOptions::cache_dir ("" = the default folder, "-" = memory only). Fills out->backend (or
// leaves it null when the baseline won or no candidate runs) and out->choice (with " (cached)" when
// it came from the cache file). Without `search`, a problem the cache lacks takes the baseline
// untimed, and nothing is stored.
Status Prepare(int device, hipStream_t stream, const GemmDesc& d, const void* bias, void* workspace, size_t workspace_bytes,
               const std::string& cache_dir, bool search, const std::function<Status()>& legacy, PreparedGemm* out);

// Queues the chosen cublasLt algorithm; `prepared.backend` is non-null.
Status Run(const PreparedGemm& prepared, hipStream_t stream, const GemmDesc& d);

}  // namespace switchyard::blas::lt

#endif
