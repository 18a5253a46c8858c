#include "pool_primitive.h"

#include <array>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, y) and runSync(x, y): the buffers in PoolKernel::Execute's order.
std::array<Float32View, 2> ReadRunArgs(const Napi::CallbackInfo& info, const PoolKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Float32View x = ExpectFloat32ArrayLazy(env, info[0], kernel.srcElements(), [&] { return std::string(method) + ": x (input " + DimsToString(kernel.params().input) + ")"; });
  const Dims& out = kernel.outputDims();
  const Float32View y = ExpectFloat32ArrayLazy(env, info[1], kernel.dstElements(), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {x, y};
}

}  // namespace

Napi::Function PoolPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(env);
}

PoolPrimitive::PoolPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new PoolPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  PoolParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  const std::string kind = ReadString(env, options, "kind", ctx, "");
  p.kernel = ReadDims(env, options, "kernel", ctx, true);
  p.strides = ReadDims(env, options, "strides", ctx, false);
  p.padsBegin = ReadDims(env, options, "padsBegin", ctx, false);
  p.padsEnd = ReadDims(env, options, "padsEnd", ctx, false);
  p.threads = ThreadsOption(env, options, ctx);
  p.block = ReadInt(env, options, "block", ctx, 0);
  kernel_ = GuardSync(env, ctx, [&] {
    p.kind = ParsePoolKind(kind);
    return std::make_shared<const PoolKernel>(p);
  });
}

}  // namespace switchyard
