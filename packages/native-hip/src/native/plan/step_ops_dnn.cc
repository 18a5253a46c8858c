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
//   BatchNormalization [epsilon]; inputs X, scale, B, mean, var
#include "dnn/dnn.h"
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::dnn {
const char* Unavailable() __attribute__((weak));
Status ConvForward(int, hipStream_t, const Conv2dDesc&, const ConvArgs&, const ConvOptions&) __attribute__((weak));
Status Pool2dForward(int, hipStream_t, const Pool2dDesc&, const void*, void*) __attribute__((weak));
Status BatchNormInference(int, hipStream_t, DataType, int, int, int64_t, const void*, const void*, const void*, const void*,
                          const void*, double, void*) __attribute__((weak));
}  // namespace switchyard::dnn

namespace switchyard::plan {
namespace {

bool DnnLinked() { return &dnn::Unavailable != nullptr && dnn::Unavailable() == nullptr; }

dnn::DataType DnnType(int dtype) { return dtype == kFloat16 ? dnn::DataType::kFloat16 : dnn::DataType::kFloat32; }

std::string FloatSame(const StepArgs& args) {
  const int t = args.in(0).dtype;
  if (t != kFloat32 && t != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* x : args.inputs) if (x != nullptr && x->dtype != t) return "operands differ in element type";
  if (args.out(0).dtype != t) return "output type differs";
  return "";
}

int I(const StepArgs& a, size_t i) { return static_cast<int>(a.attrs[i]); }

dnn::Conv2dDesc ConvDesc(const StepArgs& a) {
  dnn::Conv2dDesc d;
  const TensorRef &x = a.in(0), &w = a.in(1);
  d.dtype = DnnType(x.dtype);
  d.n = static_cast<int>(x.dims[0]);
  d.c = static_cast<int>(x.dims[1]);
  d.h = static_cast<int>(x.dims[2]);
  d.w = static_cast<int>(x.dims[3]);
  d.k = static_cast<int>(w.dims[0]);
  d.kh = static_cast<int>(w.dims[2]);
  d.kw = static_cast<int>(w.dims[3]);
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

std::string CheckConv(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 4, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() != 4 || args->in(1).dims.size() != 4 || args->out(0).dims.size() != 4) return "only 2-D (NCHW) convolution";
  if (args->inputs.size() > 3 && args->inputs[3] != nullptr && args->inputs[3]->dims != args->out(0).dims) return "the residual Z must have Y's shape";
  if (args->attrs.size() != 11 && args->attrs.size() != 14) return "needs 11 or 14 attributes";
  if (I(*args, 10) == 2 && (args->attrs.size() != 14 || &kernels::LaunchBiasActivation == nullptr)) {
    return "a fused activation other than ReLU needs [unary op, alpha, beta] and the epilogue kernel";
  }
  const dnn::Conv2dDesc d = ConvDesc(*args);
  if (dnn::ConvOutputSize(d, true, false) != args->out(0).dims[2] || dnn::ConvOutputSize(d, false, false) != args->out(0).dims[3]) {
    return "output size differs from the convolution's";
  }
  return "";
}

hipError_t Report(const dnn::Status& s) { return s.ok ? hipSuccess : hipErrorInvalidValue; }

hipError_t LaunchConv(const StepArgs& a) {
  dnn::ConvArgs args;
  args.x = a.in(0).data;
  args.w = a.in(1).data;
  const void* bias = a.inputs.size() > 2 && a.inputs[2] != nullptr ? a.inputs[2]->data : nullptr;
  const void* residual = a.inputs.size() > 3 && a.inputs[3] != nullptr ? a.inputs[3]->data : nullptr;
  args.y = a.out(0).data;
  const int activation = I(a, 10);
  dnn::ConvOptions options;
  options.search = static_cast<dnn::AlgoSearch>(I(a, 9));
  const dnn::Conv2dDesc desc = ConvDesc(a);
  const bool cudnn_fused = desc.dtype == dnn::DataType::kFloat32 && activation == 1 && bias != nullptr;
  const bool epilogue = !cudnn_fused && (bias != nullptr || activation != 0 || residual != nullptr) && &kernels::LaunchBiasActivation != nullptr;
  if (!epilogue) {
    args.bias = bias;
    args.residual = residual;
    args.activation = activation == 1 ? dnn::Activation::kRelu : dnn::Activation::kNone;
    return Report(dnn::ConvForward(a.device, a.stream, desc, args, options));
  }
  const hipError_t conv = Report(dnn::ConvForward(a.device, a.stream, desc, args, options));
  if (conv != hipSuccess) return conv;
  const TensorRef& y = a.out(0);
  kernels::UnaryOp op = kernels::UnaryOp::kIdentity;
  kernels::UnaryParams params;
  if (activation == 1) op = kernels::UnaryOp::kRelu;
  if (activation == 2) {
    op = static_cast<kernels::UnaryOp>(I(a, 11));
    params.alpha = static_cast<float>(a.attrs[12]);
    params.beta = static_cast<float>(a.attrs[13]);
  }
  const kernels::DType dt = y.dtype == kFloat16 ? kernels::DType::kFloat16 : kernels::DType::kFloat32;
  return kernels::LaunchBiasActivation(dt, y.data, bias, residual, y.data, y.dims[0], y.dims[1], y.dims[2] * y.dims[3], op, params,
                                       kernels::ResidualPlacement::kBeforeActivation, a.stream);
}

dnn::Pool2dDesc PoolDesc(const StepArgs& a) {
  dnn::Pool2dDesc d;
  const TensorRef& x = a.in(0);
  d.dtype = DnnType(x.dtype);
  d.mode = static_cast<dnn::PoolMode>(I(a, 0));
  d.n = static_cast<int>(x.dims[0]);
  d.c = static_cast<int>(x.dims[1]);
  d.h = static_cast<int>(x.dims[2]);
  d.w = static_cast<int>(x.dims[3]);
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

std::string CheckPool(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (p.empty()) p = FloatSame(*args);
  if (!p.empty()) return p;
  if (args->in(0).dims.size() != 4 || args->out(0).dims.size() != 4) return "only 2-D (NCHW) pooling";
  if (args->attrs.size() != 9) return "needs 9 attributes";
  const dnn::Pool2dDesc d = PoolDesc(*args);
  if (dnn::PoolOutputSize(d, true) != args->out(0).dims[2] || dnn::PoolOutputSize(d, false) != args->out(0).dims[3]) {
    return "output size differs from the pooling's";
  }
  return "";
}

hipError_t LaunchPool(const StepArgs& a) { return Report(dnn::Pool2dForward(a.device, a.stream, PoolDesc(a), a.in(0).data, a.out(0).data)); }

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
SWITCHYARD_STEP_OP("Pool", CheckPool, LaunchPool, DnnLinked());
SWITCHYARD_STEP_OP("BatchNormalization", CheckBatchNorm, LaunchBatchNorm, DnnLinked());

}  // namespace switchyard::plan
