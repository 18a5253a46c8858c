// Resize over the last two axes (kernels/resize.hip). Attribute blob:
//   Resize [mode (0 nearest, 1 linear), coordinate transform (0 half_pixel, 1 asymmetric, 2 align_corners,
//           3 pytorch_half_pixel, 4 tf_half_pixel_for_nn), nearest mode (0 round_prefer_floor,
//           1 round_prefer_ceil, 2 floor, 3 ceil), scale_h, scale_w]
//   one input X (rank >= 2; the leading axes are kept), one output whose last two dims are the new size.
#include "plan/kernel_refs.h"
#include "plan/step_op.h"

namespace switchyard::plan {
namespace {

kernels::ResizeShape ShapeOf(const StepArgs& a) {
  const auto& in = a.in(0).dims;
  const auto& out = a.out(0).dims;
  const size_t r = in.size();
  kernels::ResizeShape s;
  s.planes = 1;
  for (size_t i = 0; i + 2 < r; ++i) s.planes *= in[i];
  s.in_h = in[r - 2];
  s.in_w = in[r - 1];
  s.out_h = out[r - 2];
  s.out_w = out[r - 1];
  s.mode = static_cast<kernels::ResizeMode>(static_cast<int>(a.attrs[0]));
  s.transform = static_cast<kernels::ResizeTransform>(static_cast<int>(a.attrs[1]));
  s.nearest = static_cast<kernels::ResizeNearest>(static_cast<int>(a.attrs[2]));
  s.scale_h = static_cast<float>(a.attrs[3]);
  s.scale_w = static_cast<float>(a.attrs[4]);
  return s;
}

std::string CheckResize(StepArgs* args) {
  std::string p = ExpectArity(*args, 1, 1, 1);
  if (!p.empty()) return p;
  const TensorRef &x = args->in(0), &y = args->out(0);
  if (x.dtype != kFloat32 && x.dtype != kFloat16) return "X must be float32 or float16";
  if (y.dtype != x.dtype) return "output type differs";
  if (x.dims.size() < 2 || y.dims.size() != x.dims.size()) return "X needs rank >= 2 and Y the same rank";
  for (size_t i = 0; i + 2 < x.dims.size(); ++i) if (x.dims[i] != y.dims[i]) return "only the last two axes are resized";
  if (args->attrs.size() != 5) return "needs 5 attributes";
  const double mode = args->attrs[0], transform = args->attrs[1], nearest = args->attrs[2];
  if (mode != 0 && mode != 1) return "mode must be 0 (nearest) or 1 (linear)";
  if (transform < 0 || transform > 4 || transform != static_cast<int>(transform)) return "unknown coordinate transform";
  if (nearest < 0 || nearest > 3 || nearest != static_cast<int>(nearest)) return "unknown nearest mode";
  if (!(args->attrs[3] > 0) || !(args->attrs[4] > 0)) return "scales must be positive";
  const size_t r = x.dims.size();
  if (x.dims[r - 2] <= 0 || x.dims[r - 1] <= 0) return "X must not be empty along the resized axes";
  return "";
}

hipError_t LaunchResizeStep(const StepArgs& a) {
  kernels::DType dtype = kernels::DType::kFloat32;
  KernelDType(a.in(0).dtype, &dtype);
  return kernels::LaunchResize(dtype, a.in(0).data, a.out(0).data, ShapeOf(a), a.stream);
}

}  // namespace

SWITCHYARD_STEP_OP("Resize", CheckResize, LaunchResizeStep, &kernels::LaunchResize != nullptr);

}  // namespace switchyard::plan
