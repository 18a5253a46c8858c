#include "reorder_primitive.h"

#include <array>

#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, y) and runSync(x, y): the buffers in ReorderKernel::Execute's order.
std::array<Float32View, 2> ReadRunArgs(const Napi::CallbackInfo& info, const ReorderKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const ReorderParams& p = kernel.params();
  const Float32View x = ExpectFloat32ArrayLazy(env, info[0], kernel.srcElements(), [&] { return std::string(method) + ": x (" + DimsToString(p.dims) + ", block " + std::to_string(p.fromBlock) + ")"; });
  const Float32View y = ExpectFloat32ArrayLazy(env, info[1], kernel.dstElements(), [&] { return std::string(method) + ": y (" + DimsToString(p.dims) + ", block " + std::to_string(p.toBlock) + ")"; });
  return {x, y};
}

}  // namespace

Napi::Function ReorderPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kNone, ReadRunArgs>(env);
}

ReorderPrimitive::ReorderPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ReorderPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ReorderParams p;
  p.dims = ReadDims(env, options, "dims", ctx, true);
  p.fromBlock = ReadInt(env, options, "fromBlock", ctx, 0);
  p.toBlock = ReadInt(env, options, "toBlock", ctx, 0);
  p.threads = ThreadsOption(env, options, ctx);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ReorderKernel>(p); });
}

Napi::Value PreferredChannelBlockJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t block = GuardSync(env, "preferredChannelBlock", [] { return PreferredChannelBlock(); });
  return Napi::Number::New(env, static_cast<double>(block));
}

}  // namespace switchyard
