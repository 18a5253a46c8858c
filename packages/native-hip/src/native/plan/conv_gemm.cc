#include "plan/conv_gemm.h"

#include <cstdio>

#include "dnn/algo_cache.h"
#include "plan/kernel_refs.h"

namespace switchyard::blas {
// Weak, as in step_ops_blas.cc: a build without the BLAS seam keeps the library convolution.
const char* Unavailable() __attribute__((weak));
Status PrepareGemm(int, hipStream_t, const GemmDesc&, const void*, PreparedGemm*, const std::string&, GemmTuning) __attribute__((weak));
Status RunPreparedGemm(const PreparedGemm&, int, hipStream_t, const GemmDesc&, const void*) __attribute__((weak));
}  // namespace switchyard::blas

namespace switchyard::dnn {
const char* BackendName() __attribute__((weak));
int LibraryVersion() __attribute__((weak));
}  // namespace switchyard::dnn

namespace switchyard::plan {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 31;

}  // namespace

bool ConvGemmDirect(const dnn::Conv2dDesc& d) {
  return d.kh == 1 && d.kw == 1 && d.stride_h == 1 && d.stride_w == 1 && d.pad_top == 0 && d.pad_left == 0 && d.pad_bottom == 0 &&
         d.pad_right == 0;
}

int64_t ConvGemmWorkspaceBytes(const dnn::Conv2dDesc& d, dnn::TensorLayout layout, int64_t oh, int64_t ow, int64_t element_bytes) {
  if (d.group != 1 || oh < 1 || ow < 1 || d.n < 1 || d.c < 1 || d.kh < 1 || d.kw < 1) return -1;
  if (int64_t{d.n} * d.c * d.h * d.w >= kMaxElements) return -1;
  if (ConvGemmDirect(d)) return 0;
  if (layout == dnn::TensorLayout::kNHWC) return -1;  // no channels-last im2col
  const int64_t elements = int64_t{d.n} * d.c * d.kh * d.kw * oh * ow;
  return elements >= kMaxElements ? -1 : elements * element_bytes;
}

namespace {

// The bias broadcast to the output's [k, oh*ow] in device memory of its own, or nullptr.
std::shared_ptr<void> BiasMatrix(const StepArgs& args, int64_t k, int64_t pixels) {
  if (&kernels::LaunchExpand == nullptr) return nullptr;
  const TensorRef& bias = *args.inputs[2];
  void* matrix = nullptr;
  if (hipMalloc(&matrix, static_cast<size_t>(k * pixels) * DTypeSize(bias.dtype)) != hipSuccess) {
    (void)hipGetLastError();
    return nullptr;
  }
  std::shared_ptr<void> owned(matrix, [](void* p) { (void)hipFree(p); });
  kernels::TensorShape from, to;
  from.rank = to.rank = 2;
  from.dims[0] = to.dims[0] = k;
  from.dims[1] = 1;
  to.dims[1] = pixels;
  const kernels::DType dt = bias.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
  if (kernels::LaunchExpand(dt, bias.data, from, matrix, to, args.stream) != hipSuccess) return nullptr;
  return owned;
}

// What a convolution step can hand to the GEMM's epilogue: its bias, its residual, and an activation
// the epilogue applies itself (none or ReLU; any other keeps the bias-activation kernel).
struct EpilogueParts {
  const TensorRef* bias = nullptr;
  const TensorRef* residual = nullptr;
  bool fusable = false;
  bool relu = false;
};

EpilogueParts EpilogueOf(const StepArgs& args, kernels::UnaryOp activation) {
  EpilogueParts p;
  if (args.inputs.size() > 2) p.bias = args.inputs[2];
  if (args.inputs.size() > 3) p.residual = args.inputs[3];
  p.relu = activation == kernels::UnaryOp::kRelu;
  p.fusable = p.relu || activation == kernels::UnaryOp::kIdentity;
  return p;
}

// Prepares `fused` and makes it the step's GEMM when the library took every part of the epilogue asked
// of it (the bias vector, C as a source, the ReLU); otherwise leaves `out` alone and says false.
bool AdoptIfFused(const StepArgs& args, const blas::GemmDesc& fused, const void* bias, blas::GemmTuning tuning, const char* label,
                  ConvGemm* out) {
  blas::PreparedGemm prepared;
  const blas::Status status = blas::PrepareGemm(args.device, args.stream, fused, bias, &prepared, "", tuning);
  const bool epilogue_needed = fused.c_source != nullptr || fused.relu;
  if (!status.ok || (bias != nullptr && !prepared.bias_fused) || (epilogue_needed && !prepared.epilogue_fused)) {
    (void)hipGetLastError();
    return false;
  }
  out->gemm = fused;
  out->prepared = std::move(prepared);
  out->prepared.choice += label;
  out->epilogue_fused = true;
  out->bias = bias;
  return true;
}

// Channels-last: the output is [n*h*w, k], so the bias is one value per column (cuBLASLt's bias
// epilogue), the residual has the output's own layout (the GEMM's C, beta 1) and a ReLU rides the same
// epilogue: D = relu(x·Wᵀ + residual + bias) in one call. Without it the bias-activation kernel reads and
// writes the whole output again after the GEMM, which at batch 32 cost more than the GEMM itself
// (ResNet-50 fp16: 0.50 of the 0.89 ms its 1x1 convolutions took). True when the library took it.
bool PrepareNhwcEpilogue(const StepArgs& args, kernels::UnaryOp activation, ConvGemm* out, blas::GemmTuning tuning) {
  const EpilogueParts p = EpilogueOf(args, activation);
  if (!p.fusable || (p.bias == nullptr && p.residual == nullptr)) return false;
  const TensorRef& y = args.out(0);
  if (p.bias != nullptr && p.bias->dtype != y.dtype) return false;
  if (p.residual != nullptr && (p.residual->dtype != y.dtype || p.residual->dims != y.dims)) return false;
  blas::GemmDesc fused = out->gemm;
  if (p.residual != nullptr) {
    fused.c_source = p.residual->data;
    fused.beta = 1.0f;
  }
  fused.relu = p.relu;
  return AdoptIfFused(args, fused, p.bias != nullptr ? p.bias->data : nullptr, tuning,
                      " with the epilogue (bias, residual, ReLU) fused", out);
}

}  // namespace

std::string PrepareConvGemm(const StepArgs& args, const dnn::Conv2dDesc& d, dnn::TensorLayout layout, kernels::UnaryOp activation,
                            ConvGemm* out) {
  if (&blas::PrepareGemm == nullptr || &blas::RunPreparedGemm == nullptr || &blas::Unavailable == nullptr) return "this build has no BLAS seam";
  if (const char* why = blas::Unavailable(); why != nullptr) return why;
  const TensorRef &x = args.in(0), &w = args.in(1), &y = args.out(0);
  const bool nhwc = layout == dnn::TensorLayout::kNHWC;
  const auto tuning = static_cast<blas::GemmTuning>(GemmTuningNumber(args));
  const int64_t oh = nhwc ? y.dims[1] : y.dims[2], ow = nhwc ? y.dims[2] : y.dims[3];
  const int64_t needed = ConvGemmWorkspaceBytes(d, layout, oh, ow, static_cast<int64_t>(DTypeSize(x.dtype)));
  if (needed < 0) return nhwc ? "channels-last, only an unpadded 1x1 stride-1 convolution is one GEMM" : "grouped, or too large for one GEMM per image";
  blas::GemmDesc& g = out->gemm;
  g.dtype = x.dtype == kFloat16 ? blas::DataType::kFloat16 : blas::DataType::kFloat32;
  // Integers TF32 holds exactly (ConvInteger's shifted operands) may use its tensor cores; im2col only
  // moves them (and pads with 0, the shifted zero point).
  g.tf32 = d.integer_operands && g.dtype == blas::DataType::kFloat32;
  if (nhwc) {
    // Every pixel of the batch is a row: [n*h*w, c] x [k, c]^T -> [n*h*w, k], the output's own layout.
    g.m = int64_t{d.n} * oh * ow;
    g.n = d.k;
    g.k = d.c;
    g.trans_b = true;
    g.a = x.data;
    g.b = w.data;
    g.c = y.data;
    if (PrepareNhwcEpilogue(args, activation, out, tuning)) return "";
    const blas::Status prepared = blas::PrepareGemm(args.device, args.stream, g, nullptr, &out->prepared, "", tuning);
    return prepared.ok ? "" : prepared.message;
  }
  if (needed > 0 && &kernels::LaunchIm2Col == nullptr) return "this build has no im2col kernel";
  if (static_cast<size_t>(needed) > args.workspace_bytes) {
    return "im2col needs " + std::to_string(needed) + " bytes of workspace, the plan gives " + std::to_string(args.workspace_bytes);
  }
  out->im2col = needed > 0;
  out->shape = kernels::Im2ColShape{d.n, d.c, d.h, d.w, d.kh, d.kw, d.pad_top, d.pad_left, d.stride_h, d.stride_w,
                                    d.dilation_h, d.dilation_w, static_cast<int>(oh), static_cast<int>(ow)};
  g.m = d.k;
  g.n = oh * ow;
  g.k = int64_t{d.c} * d.kh * d.kw;
  g.a = w.data;
  g.b = out->im2col ? args.workspace : x.data;
  g.c = y.data;
  if (d.n > 1) {
    g.batch = d.n;
    g.stride_a = 0;  // one filter for every image
    g.stride_b = g.k * g.n;
    g.stride_c = g.m * g.n;
  }
  if (out->im2col) {
    // The search times the GEMM on this buffer: give it the real operand, not stale arena bytes.
    kernels::DType dt = x.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
    if (kernels::LaunchIm2Col(dt, x.data, out->shape, args.workspace, args.stream) != hipSuccess) return "im2col launch failed";
  }
  // One image: the bias broadcast to a [k, h*w] matrix is the GEMM's C (beta 1), ReLU in the epilogue.
  if (const EpilogueParts p = EpilogueOf(args, activation); d.n == 1 && p.bias != nullptr && p.residual == nullptr && p.fusable) {
    if (std::shared_ptr<void> matrix = BiasMatrix(args, g.m, g.n); matrix != nullptr) {
      blas::GemmDesc fused = g;
      fused.c_source = matrix.get();
      fused.beta = 1.0f;
      fused.relu = p.relu;
      if (AdoptIfFused(args, fused, nullptr, tuning, p.relu ? " with bias and ReLU in its epilogue" : " with the bias as its C", out)) {
        out->bias_matrix = std::move(matrix);
        return "";
      }
    }
    (void)hipGetLastError();  // a failed broadcast leaves the plain GEMM below to run
  }
  const blas::Status prepared = blas::PrepareGemm(args.device, args.stream, g, nullptr, &out->prepared, "", tuning);
  return prepared.ok ? "" : prepared.message;
}

hipError_t LaunchConvGemm(const StepArgs& args, const ConvGemm& g) {
  if (g.im2col) {
    const kernels::DType dt = args.in(0).dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
    const hipError_t status = kernels::LaunchIm2Col(dt, args.in(0).data, g.shape, args.workspace, args.stream);
    if (status != hipSuccess) return status;
  }
  const blas::Status s = blas::RunPreparedGemm(g.prepared, args.device, args.stream, g.gemm, g.bias);
  return s.ok ? hipSuccess : hipErrorInvalidValue;
}

std::string ConvFormKey(const dnn::Conv2dDesc& d, dnn::TensorLayout layout, bool bias, bool residual, int activation) {
  char key[200];
  std::snprintf(key, sizeof key, "%s%s%d|%d,%d,%d,%d|%d,%d,%d|g%d|p%d,%d,%d,%d|s%d,%d|d%d,%d|b%d r%d a%d",
                layout == dnn::TensorLayout::kNHWC ? "nhwc|" : "", d.integer_operands ? "int|" : "", static_cast<int>(d.dtype), d.n, d.c,
                d.h, d.w, d.k, d.kh, d.kw, d.group, d.pad_top, d.pad_left, d.pad_bottom, d.pad_right, d.stride_h, d.stride_w,
                d.dilation_h, d.dilation_w, bias ? 1 : 0, residual ? 1 : 0, activation);
  return key;
}

namespace {

std::string ConvFormStem(int device) {
  const std::string library = &dnn::BackendName != nullptr ? dnn::BackendName() : "none";
  const int version = &dnn::LibraryVersion != nullptr ? dnn::LibraryVersion() : 0;
  return dnn::DeviceCacheName(device) + "-convform-" + library + std::to_string(version);
}

bool ParseConvForm(const std::string& value, ConvForm* out) {
  const size_t tab = value.find('\t');
  if (tab == std::string::npos) return false;
  const std::string form = value.substr(0, tab);
  if (form != "gemm" && form != "library") return false;
  if (out != nullptr) *out = ConvForm{form == "gemm", value.substr(tab + 1)};
  return true;
}

}  // namespace

bool LookupConvForm(int device, const std::string& key, ConvForm* out) {
  std::string value;
  const auto valid = [](const std::string& v) { return ParseConvForm(v, nullptr); };
  return dnn::LookupValue(dnn::CacheKind::kConvForm, dnn::ResolveCacheDir(""), ConvFormStem(device), key, valid, &value) &&
         ParseConvForm(value, out);
}

void StoreConvForm(int device, const std::string& key, const ConvForm& form) {
  std::string note = form.note;
  for (char& ch : note) if (ch == '\t' || ch == '\n' || ch == '\r') ch = ' ';
  dnn::StoreValue(dnn::CacheKind::kConvForm, dnn::ResolveCacheDir(""), ConvFormStem(device), key,
                  std::string(form.gemm ? "gemm" : "library") + "\t" + note);
}

float TimeLaunchesMs(hipStream_t stream, const std::function<hipError_t()>& launch) {
  constexpr int kReps = 5;
  hipEvent_t begin = nullptr, end = nullptr;
  if (hipEventCreate(&begin) != hipSuccess) return -1;
  if (hipEventCreate(&end) != hipSuccess) {
    (void)hipEventDestroy(begin);
    return -1;
  }
  float best = -1;
  bool failed = launch() != hipSuccess;
  for (int round = 0; round < 2 && !failed; ++round) {
    failed = hipEventRecord(begin, stream) != hipSuccess;
    for (int r = 0; r < kReps && !failed; ++r) failed = launch() != hipSuccess;
    float ms = 0;
    if (!failed) failed = hipEventRecord(end, stream) != hipSuccess || hipEventSynchronize(end) != hipSuccess ||
                          hipEventElapsedTime(&ms, begin, end) != hipSuccess;
    if (!failed && (best < 0 || ms / kReps < best)) best = ms / kReps;
  }
  (void)hipStreamSynchronize(stream);
  (void)hipEventDestroy(begin);
  (void)hipEventDestroy(end);
  return failed ? -1 : best;
}

}  // namespace switchyard::plan
