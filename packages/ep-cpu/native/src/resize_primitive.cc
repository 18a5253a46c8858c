#include "resize_primitive.h"

#include <array>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, y) and runSync(x, y): the buffers in ResizeKernel::Execute's order.
std::array<Float32View, 2> ReadRunArgs(const Napi::CallbackInfo& info, const ResizeKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Float32View x = ExpectFloat32ArrayLazy(env, info[0], kernel.srcElements(), [&] { return std::string(method) + ": x (input " + DimsToString(kernel.params().input) + ")"; });
  const Float32View y = ExpectFloat32ArrayLazy(env, info[1], kernel.dstElements(), [&] { return std::string(method) + ": y (output " + DimsToString(kernel.outputDims()) + ")"; });
  return {x, y};
}

}  // namespace

Napi::Function ResizePrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(env);
}

ResizePrimitive::ResizePrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ResizePrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ResizeParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.output = ReadDims(env, options, "outputDims", ctx, true);
  p.scales = ReadNumbers(env, options, "scales", ctx, true);
  p.roi = ReadNumbers(env, options, "roi", ctx, false);
  const std::string mode = ReadString(env, options, "mode", ctx, "nearest");
  const std::string coordinate = ReadString(env, options, "coordinateMode", ctx, "half_pixel");
  const std::string nearest = ReadString(env, options, "nearestMode", ctx, "round_prefer_floor");
  p.method.cubicA = ReadNumber(env, options, "cubicCoeffA", ctx, -0.75);
  p.method.excludeOutside = ReadBool(env, options, "excludeOutside", ctx, false);
  p.method.antialias = ReadBool(env, options, "antialias", ctx, false);
  p.extrapolation = static_cast<float>(ReadNumber(env, options, "extrapolationValue", ctx, 0.0));
  p.block = ReadInt(env, options, "block", ctx, 0);
  p.threads = ThreadsOption(env, options, ctx);
  kernel_ = GuardSync(env, ctx, [&] {
    p.method.mode = ParseResizeMode(mode);
    p.method.coordinate = ParseCoordinateMode(coordinate);
    p.method.nearest = ParseNearestMode(nearest);
    return std::make_shared<const ResizeKernel>(p);
  });
}

}  // namespace switchyard
