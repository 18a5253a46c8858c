// Step ops on the BLAS seam (blas/blas.h): MatMul and Gemm. Attribute blobs:
//   MatMul / MatMulBias []; inputs A, B, bias (MatMulBias: [n], a Linear layer's bias the TS side folded in)
//   Gemm [transA, transB, alpha, beta]; inputs A, B, C (-1 when absent).
//   MatMulStrided [16 view attributes, below]; inputs A, B.
//   MatMulSplitTf32 []; inputs A [.., K], B3 [3K, N], bias [N] or [1, N] (optional); a workspace of rows(A) x 3K floats.
// MatMul batches: both operands share the output's batch dims, or one has none (stride 0).
// MatMul is prepared in its check (blas::PrepareGemm: on cuBLAS, cublasLt's algorithms timed against
// cublasGemmEx on the step's own buffers); a bias the chosen path cannot fuse is broadcast into Y
// first and the GEMM accumulates onto it (beta 1).
#include <cmath>
#include <cstdlib>

#include "blas/blas.h"
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::blas {
// Weak, as kernel_refs.h: a build without the seam's backend declines these ops instead of failing to load.
const char* Unavailable() __attribute__((weak));
Status Gemm(int device, hipStream_t stream, const GemmDesc& desc) __attribute__((weak));
Status PrepareGemm(int, hipStream_t, const GemmDesc&, const void*, PreparedGemm*, const std::string&, GemmTuning) __attribute__((weak));
Status RunPreparedGemm(const PreparedGemm&, int, hipStream_t, const GemmDesc&, const void*) __attribute__((weak));
}  // namespace switchyard::blas

namespace switchyard::plan {
namespace {

// SWITCHYARD_GEMM_SEARCH=0 (read when the addon loads) hides MatMulBias, so the EP keeps the bias
// Add apart, and PrepareGemm skips the search: the plain cublasGemmEx path, for A/B measurements.
bool GemmSearchOn() {
  const char* v = std::getenv("SWITCHYARD_GEMM_SEARCH");
  return v == nullptr || std::string(v) != "0";
}

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

const TensorRef* BiasOf(const StepArgs& args) { return args.inputs.size() > 2 ? args.inputs[2] : nullptr; }

// Prepares the step's GEMM once (blas::PrepareGemm: the algorithm search or a cached answer) and keeps
// it as the step's state; "" or the library's message.
std::string PrepareStepGemm(StepArgs* args, const blas::GemmDesc& d, const TensorRef* bias) {
  auto state = std::make_shared<blas::PreparedGemm>();
  const blas::Status prepared = blas::PrepareGemm(args->device, args->stream, d, bias != nullptr ? bias->data : nullptr, state.get(), "",
                                                  static_cast<blas::GemmTuning>(GemmTuningNumber(*args)));
  if (!prepared.ok) return prepared.message;
  args->note = state->choice;  // the algorithm chosen and how, in the plan's stepNotes
  args->state = state;
  return "";
}

// Broadcasts a bias (or Gemm's C) into Y (the GEMM then adds onto it).
hipError_t ExpandRows(const StepArgs& args, const TensorRef& row) {
  kernels::TensorShape cs, ys;
  KernelShape(row, &cs);
  KernelShape(args.out(0), &ys);
  const kernels::DType dt = args.out(0).dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
  return kernels::LaunchExpand(dt, row.data, cs, args.out(0).data, ys, args.stream);
}

// A MatMul-like step's GEMM with its folded bias (MatMul, MatMulBias, MatMulSplitTf32): prepared once,
// the bias in the chosen algorithm's epilogue where it can be, else broadcast into Y first. "" or why not.
std::string PrepareBiasedGemm(StepArgs* args, const blas::GemmDesc& d, const TensorRef* bias) {
  if (&blas::PrepareGemm == nullptr || &blas::RunPreparedGemm == nullptr) {
    return bias != nullptr ? "a folded bias needs blas::PrepareGemm, which this build lacks" : "";
  }
  const std::string failed = PrepareStepGemm(args, d, bias);
  if (!failed.empty()) return failed;
  const bool fused = static_cast<const blas::PreparedGemm*>(args->state.get())->bias_fused;
  if (bias != nullptr && !fused && &kernels::LaunchExpand == nullptr) return "an unfused bias needs the Expand kernel, which this build lacks";
  return "";
}

hipError_t Report(const blas::Status& s) { return s.ok ? hipSuccess : hipErrorInvalidValue; }

hipError_t LaunchBiasedGemm(const StepArgs& args, blas::GemmDesc d, const TensorRef* bias) {
  const auto* prepared = static_cast<const blas::PreparedGemm*>(args.state.get());
  if (bias != nullptr && (prepared == nullptr || !prepared->bias_fused)) {
    const hipError_t s = ExpandRows(args, *bias);
    if (s != hipSuccess) return s;
    d.beta = 1.0f;
  }
  if (prepared == nullptr) return Report(blas::Gemm(args.device, args.stream, d));
  return Report(blas::RunPreparedGemm(*prepared, args.device, args.stream, d, bias != nullptr ? bias->data : nullptr));
}

std::string CheckMatMul(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (p.empty()) p = FloatSame(*args);
  blas::GemmDesc d;
  if (p.empty()) p = MatMulDesc(*args, &d);
  if (!p.empty()) return p;
  const TensorRef* bias = BiasOf(*args);
  if (bias != nullptr && (bias->dims.size() != 1 || bias->dims[0] != d.n)) return "the bias must be 1-D with the output's last dimension";
  return PrepareBiasedGemm(args, d, bias);
}

hipError_t LaunchMatMul(const StepArgs& args) {
  blas::GemmDesc d;
  MatMulDesc(args, &d);
  return LaunchBiasedGemm(args, d, BiasOf(args));
}

void GemmStepDesc(const StepArgs& args, blas::GemmDesc* d) {
  const TensorRef &a = args.in(0), &b = args.in(1), &y = args.out(0);
  d->dtype = BlasType(a.dtype);
  d->trans_a = args.attrs[0] != 0;
  d->trans_b = args.attrs[1] != 0;
  d->m = y.dims[0];
  d->n = y.dims[1];
  d->k = d->trans_a ? a.dims[0] : a.dims[1];
  d->alpha = static_cast<float>(args.attrs[2]);
  d->beta = 0.0f;
  d->a = a.data;
  d->b = b.data;
  d->c = y.data;
}

bool HasC(const StepArgs& args) { return args.inputs.size() > 2 && args.inputs[2] != nullptr && args.attrs[3] != 0; }

// C as a Linear layer's bias -- [n] or [1, n] with beta 1 -- which a prepared GEMM's epilogue can add.
const TensorRef* RowBias(const StepArgs& args) {
  if (!HasC(args) || args.attrs[3] != 1) return nullptr;
  const TensorRef& c = *args.inputs[2];
  const int64_t n = args.out(0).dims[1];
  const bool row = (c.dims.size() == 1 && c.dims[0] == n) || (c.dims.size() == 2 && c.dims[0] == 1 && c.dims[1] == n);
  return row ? &c : nullptr;
}

std::string CheckGemm(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() != 2 || args->in(1).dims.size() != 2 || args->out(0).dims.size() != 2) return "A, B and Y must be 2-D";
  if (args->attrs.size() != 4) return "needs [transA, transB, alpha, beta]";
  const bool has_c = args->inputs.size() > 2 && args->inputs[2] != nullptr;
  if (has_c && &kernels::LaunchExpand == nullptr) return "a bias C needs the Expand kernel, which this build lacks";
  // Prepared (algorithm search) without C or with a row bias; any other C keeps the plain path.
  const TensorRef* bias = RowBias(*args);
  if (!GemmSearchOn() || &blas::PrepareGemm == nullptr || &blas::RunPreparedGemm == nullptr || (HasC(*args) && bias == nullptr)) return "";
  blas::GemmDesc d;
  GemmStepDesc(*args, &d);
  return PrepareStepGemm(args, d, bias);
}

hipError_t LaunchGemm(const StepArgs& args) {
  blas::GemmDesc d;
  GemmStepDesc(args, &d);
  const auto* prepared = static_cast<const blas::PreparedGemm*>(args.state.get());
  const TensorRef* c = HasC(args) ? args.inputs[2] : nullptr;
  if (c != nullptr && (prepared == nullptr || !prepared->bias_fused)) {
    // Y = broadcast(C) first; the GEMM then accumulates onto it with beta.
    const hipError_t s = ExpandRows(args, *c);
    if (s != hipSuccess) return s;
    d.beta = static_cast<float>(args.attrs[3]);
  }
  if (prepared == nullptr) return Report(blas::Gemm(args.device, args.stream, d));
  return Report(blas::RunPreparedGemm(*prepared, args.device, args.stream, d, c != nullptr ? c->data : nullptr));
}

// MatMulStrided: one strided-batched GEMM over views of its operands' buffers, as the TS side's
// attention fold (ep-rocm plan/attention-fold.ts) describes them: the per-head slices of [S, H*D]
// projections, read in place instead of after a Transpose, and written the same way.
//   attrs [transA, transB, m, n, k, lda, ldb, ldc, batch, strideA, strideB, strideC, offsetA, offsetB,
//          offsetC, alpha]  (leading dimensions, strides and offsets in elements)
// The check proves every view lies inside its buffer; C elements outside the view keep their contents.
constexpr size_t kStridedAttrs = 16;

// Elements a row-major view of rows x cols with leading dimension ld, repeated batch times at stride,
// reaches from its offset: the buffer must hold at least this many. -1 when the view is malformed.
int64_t ViewExtent(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
  if (offset < 0 || rows < 1 || cols < 1 || ld < cols || batch < 1 || stride < 0) return -1;
  return offset + (batch - 1) * stride + (rows - 1) * ld + cols;
}

bool WholeNumbers(const std::vector<double>& attrs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!(attrs[i] >= 0 && attrs[i] <= 9.0e15 && attrs[i] == static_cast<double>(static_cast<int64_t>(attrs[i])))) return false;
  }
  return true;
}

void StridedDesc(const StepArgs& args, blas::GemmDesc* d) {
  const auto at = [&](size_t i) { return static_cast<int64_t>(args.attrs[i]); };
  const size_t element = DTypeSize(args.out(0).dtype);
  d->dtype = BlasType(args.out(0).dtype);
  d->trans_a = at(0) != 0;
  d->trans_b = at(1) != 0;
  d->m = at(2);
  d->n = at(3);
  d->k = at(4);
  d->lda = at(5);
  d->ldb = at(6);
  d->ldc = at(7);
  d->batch = at(8);
  d->stride_a = at(9);
  d->stride_b = at(10);
  d->stride_c = at(11);
  d->a = static_cast<const uint8_t*>(args.in(0).data) + at(12) * element;
  d->b = static_cast<const uint8_t*>(args.in(1).data) + at(13) * element;
  d->c = static_cast<uint8_t*>(args.out(0).data) + at(14) * element;
  d->alpha = static_cast<float>(args.attrs[15]);
  d->beta = 0.0f;
}

std::string CheckMatMulStrided(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 2, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->attrs.size() != kStridedAttrs || !WholeNumbers(args->attrs, kStridedAttrs - 1) || !std::isfinite(args->attrs[15])) {
    return "needs 15 whole-number view attributes and a finite alpha";
  }
  blas::GemmDesc d;
  StridedDesc(*args, &d);
  const auto at = [&](size_t i) { return static_cast<int64_t>(args->attrs[i]); };
  const int64_t a = ViewExtent(at(12), d.trans_a ? d.k : d.m, d.trans_a ? d.m : d.k, d.lda, d.batch, d.stride_a);
  const int64_t b = ViewExtent(at(13), d.trans_b ? d.n : d.k, d.trans_b ? d.k : d.n, d.ldb, d.batch, d.stride_b);
  const int64_t c = ViewExtent(at(14), d.m, d.n, d.ldc, d.batch, d.stride_c);
  if (a < 0 || b < 0 || c < 0) return "a view is malformed (a leading dimension below its row, or an empty side)";
  if (a > args->in(0).count() || b > args->in(1).count() || c > args->out(0).count()) return "a view reaches past its buffer";
  if (&blas::PrepareGemm == nullptr || &blas::RunPreparedGemm == nullptr) return "";
  return PrepareStepGemm(args, d, nullptr);
}

hipError_t LaunchMatMulStrided(const StepArgs& args) {
  blas::GemmDesc d;
  StridedDesc(args, &d);
  const auto* prepared = static_cast<const blas::PreparedGemm*>(args.state.get());
  if (prepared == nullptr) return Report(blas::Gemm(args.device, args.stream, d));
  return Report(blas::RunPreparedGemm(*prepared, args.device, args.stream, d, nullptr));
}

// MatMulSplitTf32: a float32 MatMul as "3xTF32" (kernels/split_tf32.hip): the TS side (ep-rocm
// plan/split-tf32.ts) replaced the constant weight B by B3 = [lo(B); hi(B); hi(B)]; each launch writes
// A3 = [hi(A) | lo(A) | hi(A)] into the step's workspace, and A3.B3 = hi.lo + lo.hi + hi.hi runs as one
// GEMM on TF32 tensor cores (blas::GemmDesc::tf32) with fp32's accuracy (~1e-6 relative per product).
std::string SplitDesc(const StepArgs& args, blas::GemmDesc* d) {
  const TensorRef &a = args.in(0), &b3 = args.in(1), &y = args.out(0);
  if (b3.dims.size() != 2 || b3.dims[0] % 3 != 0 || b3.dims[0] == 0) return "B3 must be 2-D with 3K rows";
  const int64_t k = b3.dims[0] / 3, n = b3.dims[1];
  if (a.dims.empty() || a.dims.back() != k) return "A's last dimension must be B3's rows / 3";
  const int64_t m = a.count() / k;
  if (y.count() != m * n || y.dims.empty() || y.dims.back() != n) return "output size differs from the product";
  d->dtype = blas::DataType::kFloat32;
  d->m = m;
  d->n = n;
  d->k = 3 * k;
  d->lda = 3 * k;
  d->a = args.workspace;
  d->b = b3.data;
  d->c = y.data;
  d->tf32 = true;
  return "";
}

hipError_t SplitActivation(const StepArgs& args, const blas::GemmDesc& d) {
  const int64_t k = d.k / 3;
  return kernels::LaunchSplitTf32(static_cast<const float*>(args.in(0).data), d.m, k, k, static_cast<float*>(args.workspace), d.k, k, 1,
                                  args.stream);
}

std::string CheckMatMulSplitTf32(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dtype != kFloat32) return "float32 only";
  if (&kernels::LaunchSplitTf32 == nullptr) return "this build has no split_tf32 kernel";
  blas::GemmDesc d;
  p = SplitDesc(*args, &d);
  if (!p.empty()) return p;
  const TensorRef* bias = BiasOf(*args);
  if (bias != nullptr && (bias->count() != d.n || bias->dims.empty() || bias->dims.back() != d.n)) return "the bias must hold one row of n values";
  const size_t needed = static_cast<size_t>(d.m * d.k) * sizeof(float);
  if (args->workspace_bytes < needed) {
    return "needs " + std::to_string(needed) + " bytes of workspace for the split activation, the plan gives " + std::to_string(args->workspace_bytes);
  }
  // The search times the GEMM on the workspace: give it the real split operand.
  if (SplitActivation(*args, d) != hipSuccess) return "the activation split failed to launch";
  return PrepareBiasedGemm(args, d, bias);
}

hipError_t LaunchMatMulSplitTf32(const StepArgs& args) {
  blas::GemmDesc d;
  SplitDesc(args, &d);
  const hipError_t split = SplitActivation(args, d);
  if (split != hipSuccess) return split;
  return LaunchBiasedGemm(args, d, BiasOf(args));
}

}  // namespace

SWITCHYARD_STEP_OP("MatMul", CheckMatMul, LaunchMatMul, BlasLinked());
SWITCHYARD_STEP_OP("MatMulStrided", CheckMatMulStrided, LaunchMatMulStrided, BlasLinked());
// The same step with its bias input (the name tells the EP this build folds MatMul + Add(bias)).
SWITCHYARD_STEP_OP("MatMulBias", CheckMatMul, LaunchMatMul, BlasLinked() && &blas::PrepareGemm != nullptr && GemmSearchOn());
SWITCHYARD_STEP_OP("Gemm", CheckGemm, LaunchGemm, BlasLinked());
SWITCHYARD_STEP_OP("MatMulSplitTf32", CheckMatMulSplitTf32, LaunchMatMulSplitTf32, BlasLinked() && &kernels::LaunchSplitTf32 != nullptr);

}  // namespace switchyard::plan
