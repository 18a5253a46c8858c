// ConvTranspose on the DNN seam (dnn::ConvTransposeForward: cuDNN's backward-data convolution,
// MIOpen's miopenTranspose mode). Attribute blob (NCHW, 2-D):
//   ConvTranspose [group, pad_top, pad_left, pad_bottom, pad_right, stride_h, stride_w, dilation_h,
//                  dilation_w, output_padding_h, output_padding_w, search (0 default, 1 heuristic, 2 exhaustive)]
//   inputs X [n, c, h, w], W [c, k/group, kh, kw] (ONNX's layout), B [k] (-1 when absent); output [n, k, oh, ow].
// The check runs the convolution once on the step's buffers, so the seam picks its algorithm and grows
// its workspace then; every launch after that finds both in memory and only queues library calls
// (capturable into a graph).
#include "dnn/dnn.h"
#include "plan/step_op.h"

namespace switchyard::dnn {
const char* Unavailable() __attribute__((weak));
Status ConvTransposeForward(int, hipStream_t, const Conv2dDesc&, const ConvArgs&, const ConvOptions&) __attribute__((weak));
}  // namespace switchyard::dnn

namespace switchyard::plan {
namespace {

bool Linked() { return &dnn::Unavailable != nullptr && &dnn::ConvTransposeForward != nullptr && dnn::Unavailable() == nullptr; }

int I(const StepArgs& a, size_t i) { return static_cast<int>(a.attrs[i]); }

dnn::Conv2dDesc Describe(const StepArgs& a) {
  const TensorRef &x = a.in(0), &w = a.in(1);
  dnn::Conv2dDesc d;
  d.dtype = x.dtype == kFloat16 ? dnn::DataType::kFloat16 : dnn::DataType::kFloat32;
  d.n = static_cast<int>(x.dims[0]);
  d.c = static_cast<int>(x.dims[1]);
  d.h = static_cast<int>(x.dims[2]);
  d.w = static_cast<int>(x.dims[3]);
  d.group = I(a, 0);
  d.k = static_cast<int>(w.dims[1]) * d.group;
  d.kh = static_cast<int>(w.dims[2]);
  d.kw = static_cast<int>(w.dims[3]);
  d.pad_top = I(a, 1);
  d.pad_left = I(a, 2);
  d.pad_bottom = I(a, 3);
  d.pad_right = I(a, 4);
  d.stride_h = I(a, 5);
  d.stride_w = I(a, 6);
  d.dilation_h = I(a, 7);
  d.dilation_w = I(a, 8);
  d.output_padding_h = I(a, 9);
  d.output_padding_w = I(a, 10);
  return d;
}

dnn::ConvArgs ArgsOf(const StepArgs& a) {
  dnn::ConvArgs args;
  args.x = a.in(0).data;
  args.w = a.in(1).data;
  args.bias = a.inputs.size() > 2 && a.inputs[2] != nullptr ? a.inputs[2]->data : nullptr;
  args.y = a.out(0).data;
  return args;
}

dnn::ConvOptions OptionsOf(const StepArgs& a) {
  dnn::ConvOptions options;
  options.search = static_cast<dnn::AlgoSearch>(I(a, 11));
  return options;
}

std::string CheckConvTranspose(StepArgs* args) {
  std::string p = ExpectArity(*args, 2, 3, 1);
  if (!p.empty()) return p;
  const int t = args->in(0).dtype;
  if (t != kFloat32 && t != kFloat16) return "operands must be float32 or float16";
  for (const TensorRef* x : args->inputs) if (x != nullptr && x->dtype != t) return "operands differ in element type";
  if (args->out(0).dtype != t) return "output type differs";
  if (args->in(0).dims.size() != 4 || args->in(1).dims.size() != 4 || args->out(0).dims.size() != 4) return "only 2-D transposed convolution";
  if (args->attrs.size() != 12) return "needs 12 attributes";
  for (size_t i = 0; i < 12; ++i) {
    if (args->attrs[i] < 0 || args->attrs[i] > (1 << 20)) return "attribute " + std::to_string(i) + " out of range";
  }
  if (I(*args, 0) < 1 || I(*args, 5) < 1 || I(*args, 6) < 1 || I(*args, 7) < 1 || I(*args, 8) < 1) return "group, strides and dilations must be positive";
  const dnn::Conv2dDesc d = Describe(*args);
  if (d.c != args->in(1).dims[0] || d.c % d.group != 0) return "W's first dim must be X's channels, a multiple of group";
  const TensorRef& y = args->out(0);
  if (y.dims[0] != d.n || y.dims[1] != d.k || dnn::ConvOutputSize(d, true, true) != y.dims[2] || dnn::ConvOutputSize(d, false, true) != y.dims[3]) {
    return "output size differs from the transposed convolution's";
  }
  if (args->inputs.size() > 2 && args->inputs[2] != nullptr && args->inputs[2]->count() != d.k) return "B must have one value per output channel";
  const dnn::Status warm = dnn::ConvTransposeForward(args->device, args->stream, d, ArgsOf(*args), OptionsOf(*args));
  if (!warm.ok) return "cannot run the transposed convolution: " + warm.message;
  if (hipStreamSynchronize(args->stream) != hipSuccess) return "the transposed convolution failed on the device";
  return "";
}

hipError_t LaunchConvTranspose(const StepArgs& a) {
  const dnn::Status s = dnn::ConvTransposeForward(a.device, a.stream, Describe(a), ArgsOf(a), OptionsOf(a));
  return s.ok ? hipSuccess : hipErrorInvalidValue;
}

}  // namespace

SWITCHYARD_STEP_OP("ConvTranspose", CheckConvTranspose, LaunchConvTranspose, Linked());

}  // namespace switchyard::plan
