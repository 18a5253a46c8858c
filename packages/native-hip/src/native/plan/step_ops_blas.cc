// Step ops on the BLAS seam (blas/blas.h): MatMul and Gemm. Attribute blobs:
//   MatMul []   Gemm [transA, transB, alpha, beta]; inputs A, B, C (-1 when absent).
// MatMul batches: both operands share the output's batch dims, or one has none (stride 0).
#include "blas/blas.h"
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::blas {
// Weak, as kernel_refs.h: a build without the seam's backend declines these ops instead of failing to load.
const char* Unavailable() __attribute__((weak));
Status Gemm(int device, hipStream_t stream, const GemmDesc& desc) __attribute__((weak));
}  // namespace switchyard::blas

namespace switchyard::plan {
namespace {

bool BlasLinked() { return &blas::Gemm != nullptr && &blas::Unavailable != nullptr && blas::Unavailable() == nullptr; }

blas::DataType BlasType(int dtype) { return dtype == kFloat16 ? blas::DataType::kFloat16 : blas::DataType::kFloat32; }

int64_t BatchOf(const TensorRef& t) {
  int64_t n = 1;
  for (size_t i = 0; i + 2 < t.dims.size(); ++i) n *= t.dims[i];
  return n;
}

// Fills the GEMM of a MatMul step; "" or why the shapes are not served.
std::string MatMulDesc(const StepArgs& args, blas::GemmDesc* d) {
  const TensorRef &a = args.in(0), &b = args.in(1), &y = args.out(0);
  if (a.dims.size() < 2 || b.dims.size() < 2) return "1-D operands are not served";
  d->dtype = BlasType(a.dtype);
  d->m = a.dims[a.dims.size() - 2];
  d->k = a.dims[a.dims.size() - 1];
  d->n = b.dims[b.dims.size() - 1];
  if (b.dims[b.dims.size() - 2] != d->k) return "inner dimensions differ";
  const int64_t ba = BatchOf(a), bb = BatchOf(b), by = BatchOf(y);
  if (!((ba == by || ba == 1) && (bb == by || bb == 1))) return "batch dims broadcast in a way the strided GEMM cannot express";
  d->batch = by;
  d->stride_a = ba == 1 ? 0 : d->m * d->k;
  d->stride_b = bb == 1 ? 0 : d->k * d->n;
  d->stride_c = d->m * d->n;
  d->a = a.data;
  d->b = b.data;
  d->c = y.data;
  if (y.count() != by * d->m * d->n) return "output size differs from the product";
  if (bb == 1 && ba == by && by > 1) {
    // A shared B (a Linear layer's weight on [batch, seq, k]): A and Y are contiguous, so the batch is
    // one GEMM with batch*m rows -- one large product instead of `batch` small ones (BERT b32: 32x128
    // rows each), which cuBLAS runs faster.
    d->m *= by;
    d->batch = 1;
    d->stride_a = d->stride_c = 0;
  }
  return "";
}

std::string FloatSame(const StepArgs& args) {
  const int t = args.in(0).dtype;
  if (t != kFloat32 && t != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* x : args.inputs) if (x != nullptr && x->dtype != t) return "operands differ in element type";
  if (args.out(0).dtype != t) return "output type differs";
  return "";
}

std::string CheckMatMul(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 2, 1);
  if (p.empty()) p = FloatSame(*args);
  blas::GemmDesc d;
  if (p.empty()) p = MatMulDesc(*args, &d);
  return p;
}

hipError_t Report(const blas::Status& s) { return s.ok ? hipSuccess : hipErrorInvalidValue; }

hipError_t LaunchMatMul(const StepArgs& args) {
  blas::GemmDesc d;
  MatMulDesc(args, &d);
  return Report(blas::Gemm(args.device, args.stream, d));
}

std::string CheckGemm(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() != 2 || args->in(1).dims.size() != 2 || args->out(0).dims.size() != 2) return "A, B and Y must be 2-D";
  if (args->attrs.size() != 4) return "needs [transA, transB, alpha, beta]";
  const bool has_c = args->inputs.size() > 2 && args->inputs[2] != nullptr;
  if (has_c && &kernels::LaunchExpand == nullptr) return "a bias C needs the Expand kernel, which this build lacks";
  return "";
}

hipError_t LaunchGemm(const StepArgs& args) {
  const TensorRef &a = args.in(0), &b = args.in(1), &y = args.out(0);
  blas::GemmDesc d;
  d.dtype = BlasType(a.dtype);
  d.trans_a = args.attrs[0] != 0;
  d.trans_b = args.attrs[1] != 0;
  d.m = y.dims[0];
  d.n = y.dims[1];
  d.k = d.trans_a ? a.dims[0] : a.dims[1];
  d.alpha = static_cast<float>(args.attrs[2]);
  d.a = a.data;
  d.b = b.data;
  d.c = y.data;
  const bool has_c = args.inputs.size() > 2 && args.inputs[2] != nullptr && args.attrs[3] != 0;
  d.beta = has_c ? static_cast<float>(args.attrs[3]) : 0.0f;
  if (has_c) {
    // Y = broadcast(C) first; the GEMM then accumulates onto it with beta.
    kernels::TensorShape cs, ys;
    kernels::DType dt = a.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
    KernelShape(*args.inputs[2], &cs);
    KernelShape(y, &ys);
    const hipError_t s = kernels::LaunchExpand(dt, args.inputs[2]->data, cs, y.data, ys, args.stream);
    if (s != hipSuccess) return s;
  }
  return Report(blas::Gemm(args.device, args.stream, d));
}

}  // namespace

SWITCHYARD_STEP_OP("MatMul", CheckMatMul, LaunchMatMul, BlasLinked());
SWITCHYARD_STEP_OP("Gemm", CheckGemm, LaunchGemm, BlasLinked());

}  // namespace switchyard::plan
