#include "reorder_primitive.h"

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

struct ReorderBaton {
  std::shared_ptr<const ReorderKernel> kernel;
  const float* src;
  float* dst;
  void Run() const { kernel->Execute(src, dst); }
  const char* Context() const { return "ReorderPrimitive.run"; }
};

struct ReorderRunArgs {
  ReorderBaton baton;
  Float32View x, y;
};

ReorderRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const ReorderKernel>& kernel, const char* method) {
  Napi::Env env = info.Env();
  if (!kernel) ThrowJs(env, "RELEASED", std::string(method) + ": the primitive was disposed");
  ReorderRunArgs args;
  args.x = ExpectFloat32ArrayLazy(env, info[0], kernel->srcElements(), [&] { return std::string(method) + ": x (" + DimsToString(kernel->params().dims) + ", block " + std::to_string(kernel->params().fromBlock) + ")"; });
  args.y = ExpectFloat32ArrayLazy(env, info[1], kernel->dstElements(), [&] { return std::string(method) + ": y (" + DimsToString(kernel->params().dims) + ", block " + std::to_string(kernel->params().toBlock) + ")"; });
  args.baton = ReorderBaton{kernel, args.x.data, args.y.data};
  return args;
}

}  // namespace

Napi::Function ReorderPrimitive::Define(Napi::Env env) {
  return DefineClass(env, "ReorderPrimitive",
                     {
                         InstanceMethod<&ReorderPrimitive::Run>("run"),
                         InstanceMethod<&ReorderPrimitive::RunSync>("runSync"),
                         InstanceMethod<&ReorderPrimitive::Dispose>("dispose"),
                     });
}

ReorderPrimitive::ReorderPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ReorderPrimitive>(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ReorderPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ReorderParams p;
  p.dims = ReadDims(env, options, "dims", ctx, true);
  p.fromBlock = ReadInt(env, options, "fromBlock", ctx, 0);
  p.toBlock = ReadInt(env, options, "toBlock", ctx, 0);
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ReorderKernel>(p); });
}

Napi::Value ReorderPrimitive::Run(const Napi::CallbackInfo& info) {
  ReorderRunArgs args = ReadRunArgs(info, kernel_, "ReorderPrimitive.run");
  return PromiseWorker<ReorderBaton>::Queue(info.Env(), args.baton, {info.This(), args.x.holder, args.y.holder});
}

Napi::Value ReorderPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ReorderRunArgs args = ReadRunArgs(info, kernel_, "ReorderPrimitive.runSync");
  GuardSync(env, "ReorderPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value ReorderPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value PreferredChannelBlockJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t block = GuardSync(env, "preferredChannelBlock", [] { return PreferredChannelBlock(); });
  return Napi::Number::New(env, static_cast<double>(block));
}

}  // namespace switchyard
