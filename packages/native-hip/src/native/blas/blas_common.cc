// The parts of the BLAS seam every backend shares: argument checks.
#include <climits>

#include "blas.h"

namespace switchyard::blas {

Status Normalize(GemmDesc* d) {
  auto fail = [](const std::string& why) { return Status{false, "gemm: " + why}; };
  if (d->m < 0 || d->n < 0 || d->k < 0) return fail("m, n and k must be >= 0");
  if (d->batch < 1) return fail("batch must be >= 1");
  if (d->m > INT_MAX || d->n > INT_MAX || d->k > INT_MAX || d->batch > INT_MAX) return fail("m, n, k and batch must fit in 32 bits");
  const int64_t packed_a = d->trans_a ? d->m : d->k;
  const int64_t packed_b = d->trans_b ? d->k : d->n;
  if (d->lda == 0) d->lda = packed_a;
  if (d->ldb == 0) d->ldb = packed_b;
  if (d->ldc == 0) d->ldc = d->n;
  // The libraries need a leading dimension >= 1 even for empty matrices.
  if (d->lda < packed_a || d->ldb < packed_b || d->ldc < d->n) return fail("a leading dimension is smaller than its row");
  if (d->lda > INT_MAX || d->ldb > INT_MAX || d->ldc > INT_MAX) return fail("leading dimensions must fit in 32 bits");
  if (d->lda == 0) d->lda = 1;
  if (d->ldb == 0) d->ldb = 1;
  if (d->ldc == 0) d->ldc = 1;
  if (d->stride_a < 0 || d->stride_b < 0 || d->stride_c < 0) return fail("strides must be >= 0");
  if (d->batch > 1 && d->stride_c == 0 && d->m * d->n > 0) return fail("stride_c must be > 0 when batch > 1 (outputs would overlap)");
  if (d->m * d->n > 0 && (d->c == nullptr || (d->k > 0 && (d->a == nullptr || d->b == nullptr)))) {
    return fail("a, b and c must be device pointers");
  }
  return Status{};
}

}  // namespace switchyard::blas
