// Step ops on the DNN seam (dnn/dnn.h). Attribute blobs (NCHW, 2-D only):
//   Conv [group, pad_top, pad_left, pad_bottom, pad_right, stride_h, stride_w, dilation_h, dilation_w,
//         search (0 default, 1 heuristic, 2 exhaustive), activation (0 none, 1 relu, 2 the unary op below)
//         (, unary op (kernels::UnaryOp number), alpha, beta)]; inputs X, W, B, Z (-1 when absent; Z, the
//         FusedConv residual, has Y's shape and is added before the activation)
//   Bias and activation: fp32 bias+ReLU is cuDNN's one fused call; every other combination runs the
//   convolution alone, then bias and activation in ONE epilogue kernel (kernels/epilogue.hip) rather
//   than cuDNN's AddTensor + ActivationForward (two more library calls and kernels per conv).
//   Pool [mode (0 max, 1 avg excl. pad, 2 avg incl. pad), kh, kw, pad_top, pad_left, pad_bottom, pad_right,
//         stride_h, stride_w]  (GlobalAveragePool: kh, kw = H, W)
//   ConvNHWC / PoolNHWC: the same blobs on NHWC buffers (x [n,h,w,c], y [n,oh,ow,k], W [k,kh,kw,c/group],
//         Z like y): float16 plans keep convolutions in the tensor cores' layout (plan-description.ts).
//   Conv and Pool are prepared once, in the check (descriptors, algorithm, workspace: dnn::PrepareConv),
//   and the launch only queues the library call and the epilogue.
//   An NCHW Conv of group 1 (and an unpadded 1x1 stride-1 ConvNHWC) may instead run as im2col + GEMM
//   (plan/conv_gemm.h) with the epilogue kernel: the check times both forms on the step's buffers and
//   keeps the faster (SWITCHYARD_CONV_GEMM: auto, the default; always; never). im2col's buffer is the step's workspace, which the TS side gives
//   every Conv that may need one (plan-description.ts); the step's note says what was chosen and why.
//   ConvIntegerF32: the Conv blob with activation 0; inputs X, W only, float32 holding integers of at most
//         2^11 (ConvInteger's shifted operands, ep-rocm plan/integer-ops.ts): the convolution may run on
//         TF32 tensor cores (exact for them) and only with algorithms that sum the products as they are
//         (dnn::Conv2dDesc::integer_operands), in either form (library or im2col + GEMM).
//   BatchNormalization [epsilon]; inputs X, scale, B, mean, var
#include <cstdlib>
#include <cstdio>

#include "dnn/dnn.h"
#include "plan/conv_gemm.h"
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::dnn {
const char* Unavailable() __attribute__((weak));
const char* BackendName() __attribute__((weak));
Status ConvForward(int, hipStream_t, const Conv2dDesc&, const ConvArgs&, const ConvOptions&) __attribute__((weak));
Status Pool2dForward(int, hipStream_t, const Pool2dDesc&, const void*, void*) __attribute__((weak));
Status PrepareConv(int, hipStream_t, const Conv2dDesc&, TensorLayout, const ConvArgs&, const ConvOptions&,
                   std::unique_ptr<PreparedConv>*) __attribute__((weak));
Status PreparePool(int, hipStream_t, const Pool2dDesc&, TensorLayout, std::unique_ptr<PreparedPool>*) __attribute__((weak));
Status BatchNormInference(int, hipStream_t, DataType, int, int, int64_t, const void*, const void*, const void*, const void*,
                          const void*, double, void*) __attribute__((weak));
}  // namespace switchyard::dnn

namespace switchyard::plan {
namespace {

bool DnnLinked() {
  return &dnn::Unavailable != nullptr && &dnn::PrepareConv != nullptr && &dnn::PreparePool != nullptr && dnn::Unavailable() == nullptr;
}

dnn::DataType DnnType(int dtype) { return dtype == kFloat16 ? dnn::DataType::kFloat16 : dnn::DataType::kFloat32; }

std::string FloatSame(const StepArgs& args) {
  const int t = args.in(0).dtype;
  if (t != kFloat32 && t != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* x : args.inputs) if (x != nullptr && x->dtype != t) return "operands differ in element type";
  if (args.out(0).dtype != t) return "output type differs";
  return "";
}

int I(const StepArgs& a, size_t i) { return static_cast<int>(a.attrs[i]); }

// Axis positions of [n, c, h, w] in a buffer's dims for each layout.
struct Axes {
  int n, c, h, w;
};
constexpr Axes kNchwAxes{0, 1, 2, 3};
constexpr Axes kNhwcAxes{0, 3, 1, 2};
Axes AxesOf(dnn::TensorLayout layout) { return layout == dnn::TensorLayout::kNHWC ? kNhwcAxes : kNchwAxes; }

dnn::Conv2dDesc ConvDesc(const StepArgs& a, dnn::TensorLayout layout) {
  dnn::Conv2dDesc d;
  const TensorRef &x = a.in(0), &w = a.in(1);
  const Axes ax = AxesOf(layout);
  d.dtype = DnnType(x.dtype);
  d.n = static_cast<int>(x.dims[ax.n]);
  d.c = static_cast<int>(x.dims[ax.c]);
  d.h = static_cast<int>(x.dims[ax.h]);
  d.w = static_cast<int>(x.dims[ax.w]);
  // The filter follows the same layout: [k, c/g, kh, kw] or [k, kh, kw, c/g].
  d.k = static_cast<int>(w.dims[0]);
  d.kh = static_cast<int>(w.dims[ax.h]);
  d.kw = static_cast<int>(w.dims[ax.w]);
  d.group = I(a, 0);
  d.pad_top = I(a, 1);
  d.pad_left = I(a, 2);
  d.pad_bottom = I(a, 3);
  d.pad_right = I(a, 4);
  d.stride_h = I(a, 5);
  d.stride_w = I(a, 6);
  d.dilation_h = I(a, 7);
  d.dilation_w = I(a, 8);
  return d;
}

hipError_t Report(const dnn::Status& s) { return s.ok ? hipSuccess : hipErrorInvalidValue; }

// A Conv step's prepared state: the library's problem plus what the epilogue needs.
struct ConvState {
  std::unique_ptr<dnn::PreparedConv> conv;
  dnn::TensorLayout layout = dnn::TensorLayout::kNCHW;
  bool library_epilogue = false;  // bias/activation/residual go to the library call (fp32 bias+ReLU)
  bool kernel_epilogue = false;   // ... or to the bias-activation kernel afterwards
  kernels::UnaryOp op = kernels::UnaryOp::kIdentity;
  kernels::UnaryParams params;
  std::unique_ptr<ConvGemm> gemm;  // set: the step runs as im2col + GEMM, with the epilogue kernel
};

const void* Optional(const StepArgs& a, size_t i) { return a.inputs.size() > i && a.inputs[i] != nullptr ? a.inputs[i]->data : nullptr; }

// Queues the step in the form its state holds: the library call (with its fused or the kernel's
// epilogue), or im2col + GEMM and the epilogue kernel.
hipError_t RunConv(const ConvState& state, const StepArgs& a) {
  dnn::ConvArgs args;
  args.x = a.in(0).data;
  args.w = a.in(1).data;
  args.y = a.out(0).data;
  const void* bias = Optional(a, 2);
  const void* residual = Optional(a, 3);
  if (state.gemm == nullptr && state.library_epilogue) {
    args.bias = bias;
    args.residual = residual;
    args.activation = state.op == kernels::UnaryOp::kRelu ? dnn::Activation::kRelu : dnn::Activation::kNone;
    return Report(state.conv->Run(args));
  }
  const hipError_t conv = state.gemm != nullptr ? LaunchConvGemm(a, *state.gemm) : Report(state.conv->Run(args));
  if (conv != hipSuccess || (state.gemm != nullptr && state.gemm->epilogue_fused)) return conv;
  if (bias == nullptr && residual == nullptr && state.op == kernels::UnaryOp::kIdentity) return hipSuccess;
  const TensorRef& y = a.out(0);
  const kernels::DType dt = y.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
  // NCHW: [n, k, oh*ow] with the channel in the middle; NHWC: [n*oh*ow, k] with it innermost.
  const bool nhwc = state.layout == dnn::TensorLayout::kNHWC;
  const int64_t outer = nhwc ? y.dims[0] * y.dims[1] * y.dims[2] : y.dims[0];
  const int64_t channels = nhwc ? y.dims[3] : y.dims[1];
  const int64_t inner = nhwc ? 1 : y.dims[2] * y.dims[3];
  return kernels::LaunchBiasActivation(dt, y.data, bias, residual, y.data, outer, channels, inner, state.op, state.params,
                                       kernels::ResidualPlacement::kBeforeActivation, a.stream);
}

enum class ConvGemmMode { kAuto, kAlways, kNever };

ConvGemmMode ConvGemmModeFromEnv() {
  const char* v = std::getenv("SWITCHYARD_CONV_GEMM");
  if (v == nullptr) return ConvGemmMode::kAuto;
  const std::string mode(v);
  if (mode == "always") return ConvGemmMode::kAlways;
  if (mode == "never" || mode == "0") return ConvGemmMode::kNever;
  return ConvGemmMode::kAuto;
}

std::string Ms(float ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f ms", ms);
  return text;
}

// A convolution with a GEMM form (NCHW group 1, or channels-last 1x1): prepares that form and keeps
// it when it runs faster than the library's (both timed whole, epilogue included, on the step's
// buffers). Sets the step's note.
void ChooseConvForm(StepArgs* args, const dnn::Conv2dDesc& d, dnn::TensorLayout layout, ConvState* state) {
  const ConvGemmMode mode = ConvGemmModeFromEnv();
  const std::string library = &dnn::BackendName != nullptr ? dnn::BackendName() : "the DNN library";
  if (mode == ConvGemmMode::kNever) {
    args->note = library + " (SWITCHYARD_CONV_GEMM=never)";
    return;
  }
  if (mode == ConvGemmMode::kAuto && args->tuning == StepArgs::Tuning::kOff) {
    args->note = library + " (tuning off: tunableOpEnable is false)";
    return;
  }
  if (&kernels::LaunchBiasActivation == nullptr) {
    args->note = library + " (im2col + GEMM needs the epilogue kernel, which this build lacks)";
    return;
  }
  if (Optional(*args, 3) != nullptr && Optional(*args, 3) == args->out(0).data) {
    args->note = library + " (the residual is the output's own buffer, which the GEMM would overwrite first)";
    return;
  }
  // An earlier plan or process timed this problem: take its answer (the GEMM's algorithm comes from
  // the GEMM cache the same way).
  const bool auto_mode = mode == ConvGemmMode::kAuto;
  const std::string key = ConvFormKey(d, layout, Optional(*args, 2) != nullptr, Optional(*args, 3) != nullptr, static_cast<int>(state->op));
  ConvForm cached;
  const bool known = auto_mode && LookupConvForm(args->device, key, &cached);
  if (known && !cached.gemm) {
    args->note = cached.note + " (cached)";
    return;
  }
  if (!known && auto_mode && args->tuning == StepArgs::Tuning::kCachedOnly) {
    args->note = library + " (no cached form, and tunableOpTuningEnable is false)";
    return;
  }
  auto gemm = std::make_unique<ConvGemm>();
  const std::string why = PrepareConvGemm(*args, d, layout, state->op, gemm.get());
  if (!why.empty()) {
    args->note = library + " (im2col + GEMM: " + why + ")";
    return;
  }
  if (known) {
    args->note = cached.note + " (cached)";
    state->gemm = std::move(gemm);
    return;
  }
  const char* form = ConvGemmFormName(*gemm);
  if (mode == ConvGemmMode::kAlways) {
    args->note = std::string(form) + " (SWITCHYARD_CONV_GEMM=always; " + gemm->prepared.choice + ")";
    state->gemm = std::move(gemm);
    return;
  }
  const float library_ms = TimeLaunchesMs(args->stream, [&] { return RunConv(*state, *args); });
  state->gemm = std::move(gemm);
  const float gemm_ms = TimeLaunchesMs(args->stream, [&] { return RunConv(*state, *args); });
  // A near tie keeps the library: its timing is as noisy as ours, and it needs no workspace.
  const bool gemm_wins = gemm_ms >= 0 && (library_ms < 0 || gemm_ms < 0.95f * library_ms);
  const std::string gemm_text = std::string(form) + " " + (gemm_ms >= 0 ? Ms(gemm_ms) : "failed") + " (" + state->gemm->prepared.choice + ")";
  const std::string library_text = library + " " + (library_ms >= 0 ? Ms(library_ms) : "failed");
  if (gemm_wins) {
    args->note = gemm_text + " over " + library_text;
  } else {
    args->note = library_text + " over " + gemm_text;
    state->gemm.reset();
  }
  (void)hipGetLastError();  // a failed timing launch leaves nothing behind for the next step
  if (library_ms >= 0 && gemm_ms >= 0) StoreConvForm(args->device, key, ConvForm{gemm_wins, args->note});
}

std::string CheckConvIn(StepArgs* args, dnn::TensorLayout layout, bool integer_operands = false) {
  std::string p = ExpectArity(*args, 2, integer_operands ? 2 : 4, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (integer_operands && (args->in(0).dtype != kFloat32 || args->attrs.size() != 11 || I(*args, 10) != 0)) {
    return "ConvIntegerF32 takes float32 operands and no bias or activation";
  }
  if (args->in(0).dims.size() != 4 || args->in(1).dims.size() != 4 || args->out(0).dims.size() != 4) return "only 2-D convolution";
  if (args->inputs.size() > 3 && args->inputs[3] != nullptr && args->inputs[3]->dims != args->out(0).dims) return "the residual Z must have Y's shape";
  if (args->attrs.size() != 11 && args->attrs.size() != 14) return "needs 11 or 14 attributes";
  const int activation = I(*args, 10);
  if (activation == 2 && (args->attrs.size() != 14 || &kernels::LaunchBiasActivation == nullptr)) {
    return "a fused activation other than ReLU needs [unary op, alpha, beta] and the epilogue kernel";
  }
  if (layout == dnn::TensorLayout::kNHWC && args->in(0).dtype != kFloat16) return "NHWC convolution is for float16 plans";
  dnn::Conv2dDesc d = ConvDesc(*args, layout);
  d.integer_operands = integer_operands;
  const Axes ax = AxesOf(layout);
  const TensorRef& y = args->out(0);
  if (dnn::ConvOutputSize(d, true, false) != y.dims[ax.h] || dnn::ConvOutputSize(d, false, false) != y.dims[ax.w] || y.dims[ax.c] != d.k ||
      y.dims[ax.n] != d.n) {
    return "output size differs from the convolution's";
  }

  auto state = std::make_shared<ConvState>();
  state->layout = layout;
  const void* bias = Optional(*args, 2);
  const void* residual = Optional(*args, 3);
  const bool fused = d.dtype == dnn::DataType::kFloat32 && layout == dnn::TensorLayout::kNCHW && activation == 1 && bias != nullptr;
  state->kernel_epilogue = !fused && (bias != nullptr || activation != 0 || residual != nullptr) && &kernels::LaunchBiasActivation != nullptr;
  state->library_epilogue = !state->kernel_epilogue;
  if (state->library_epilogue && (activation == 2 || (layout == dnn::TensorLayout::kNHWC && (bias != nullptr || residual != nullptr || activation != 0)))) {
    return "this convolution's epilogue needs the bias-activation kernel";
  }
  if (activation == 1) state->op = kernels::UnaryOp::kRelu;
  if (activation == 2) {
    state->op = static_cast<kernels::UnaryOp>(I(*args, 11));
    state->params.alpha = static_cast<float>(args->attrs[12]);
    state->params.beta = static_cast<float>(args->attrs[13]);
  }
  dnn::ConvArgs sample;
  sample.x = args->in(0).data;
  sample.w = args->in(1).data;
  sample.y = y.data;
  if (state->library_epilogue) sample.residual = residual;
  dnn::ConvOptions options;
  options.search = static_cast<dnn::AlgoSearch>(I(*args, 9));
  const dnn::Status prepared = dnn::PrepareConv(args->device, args->stream, d, layout, sample, options, &state->conv);
  // NCHW: any group-1 convolution (im2col when needed); channels-last: the unpadded 1x1 stride-1 ones.
  const bool gemm_form = d.group == 1 && (layout == dnn::TensorLayout::kNCHW || ConvGemmDirect(d));
  if (!prepared.ok) {
    // The library declines some problems (cuDNN: a begin pad unlike the end pad); the GEMM form pads
    // any way, so it runs them alone.
    if (!gemm_form || &kernels::LaunchBiasActivation == nullptr) return "cannot prepare the convolution: " + prepared.message;
    auto gemm = std::make_unique<ConvGemm>();
    const std::string why = PrepareConvGemm(*args, d, layout, state->op, gemm.get());
    if (!why.empty()) return "cannot prepare the convolution: " + prepared.message + "; nor as im2col + GEMM: " + why;
    args->note = std::string(ConvGemmFormName(*gemm)) + " (the library declines: " + prepared.message + "; " +
                 gemm->prepared.choice + ")";
    state->gemm = std::move(gemm);
  } else if (gemm_form) {
    ChooseConvForm(args, d, layout, state.get());
  }
  args->state = state;
  return "";
}

std::string CheckConv(StepArgs* args) { return CheckConvIn(args, dnn::TensorLayout::kNCHW); }
std::string CheckConvNhwc(StepArgs* args) { return CheckConvIn(args, dnn::TensorLayout::kNHWC); }
std::string CheckConvIntegerF32(StepArgs* args) { return CheckConvIn(args, dnn::TensorLayout::kNCHW, true); }

hipError_t LaunchConv(const StepArgs& a) {
  const auto* state = static_cast<const ConvState*>(a.state.get());
  return state == nullptr ? hipErrorInvalidValue : RunConv(*state, a);
}

dnn::Pool2dDesc PoolDesc(const StepArgs& a, dnn::TensorLayout layout) {
  dnn::Pool2dDesc d;
  const TensorRef& x = a.in(0);
  const Axes ax = AxesOf(layout);
  d.dtype = DnnType(x.dtype);
  d.mode = static_cast<dnn::PoolMode>(I(a, 0));
  d.n = static_cast<int>(x.dims[ax.n]);
  d.c = static_cast<int>(x.dims[ax.c]);
  d.h = static_cast<int>(x.dims[ax.h]);
  d.w = static_cast<int>(x.dims[ax.w]);
  d.kh = I(a, 1);
  d.kw = I(a, 2);
  d.pad_top = I(a, 3);
  d.pad_left = I(a, 4);
  d.pad_bottom = I(a, 5);
  d.pad_right = I(a, 6);
  d.stride_h = I(a, 7);
  d.stride_w = I(a, 8);
  return d;
}

std::string CheckPoolIn(StepArgs* args, dnn::TensorLayout layout) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() != 4 || args->out(0).dims.size() != 4) return "only 2-D pooling";
  if (args->attrs.size() != 9) return "needs 9 attributes";
  const dnn::Pool2dDesc d = PoolDesc(*args, layout);
  const Axes ax = AxesOf(layout);
  const TensorRef& y = args->out(0);
  if (dnn::PoolOutputSize(d, true) != y.dims[ax.h] || dnn::PoolOutputSize(d, false) != y.dims[ax.w] || y.dims[ax.c] != d.c || y.dims[ax.n] != d.n) {
    return "output size differs from the pooling's";
  }
  std::unique_ptr<dnn::PreparedPool> pool;
  const dnn::Status prepared = dnn::PreparePool(args->device, args->stream, d, layout, &pool);
  if (!prepared.ok) return "cannot prepare the pooling: " + prepared.message;
  args->state = std::shared_ptr<dnn::PreparedPool>(std::move(pool));
  return "";
}

std::string CheckPool(StepArgs* args) { return CheckPoolIn(args, dnn::TensorLayout::kNCHW); }
std::string CheckPoolNhwc(StepArgs* args) { return CheckPoolIn(args, dnn::TensorLayout::kNHWC); }

hipError_t LaunchPool(const StepArgs& a) {
  auto* pool = static_cast<dnn::PreparedPool*>(a.state.get());
  if (pool == nullptr) return hipErrorInvalidValue;
  return Report(pool->Run(a.in(0).data, a.out(0).data));
}

std::string CheckBatchNorm(StepArgs* args) {
  std::string p = ExpectArity(*args, 5, 5, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() < 2) return "input needs a channel axis";
  for (size_t i = 1; i < 5; ++i) if (args->in(i).count() != args->in(0).dims[1]) return "scale/bias/mean/var must have one value per channel";
  return args->attrs.size() == 1 ? "" : "needs [epsilon]";
}

hipError_t LaunchBatchNorm(const StepArgs& a) {
  const TensorRef& x = a.in(0);
  int64_t spatial = 1;
  for (size_t i = 2; i < x.dims.size(); ++i) spatial *= x.dims[i];
  return Report(dnn::BatchNormInference(a.device, a.stream, DnnType(x.dtype), static_cast<int>(x.dims[0]), static_cast<int>(x.dims[1]),
                                        spatial, x.data, a.in(1).data, a.in(2).data, a.in(3).data, a.in(4).data, a.attrs[0],
                                        a.out(0).data));
}

}  // namespace

SWITCHYARD_STEP_OP("Conv", CheckConv, LaunchConv, DnnLinked());
SWITCHYARD_STEP_OP("ConvNHWC", CheckConvNhwc, LaunchConv, DnnLinked());
SWITCHYARD_STEP_OP("ConvIntegerF32", CheckConvIntegerF32, LaunchConv, DnnLinked());
SWITCHYARD_STEP_OP("Pool", CheckPool, LaunchPool, DnnLinked());
SWITCHYARD_STEP_OP("PoolNHWC", CheckPoolNhwc, LaunchPool, DnnLinked());
SWITCHYARD_STEP_OP("BatchNormalization", CheckBatchNorm, LaunchBatchNorm, DnnLinked());

}  // namespace switchyard::plan
