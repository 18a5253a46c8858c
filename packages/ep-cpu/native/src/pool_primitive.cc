#include "pool_primitive.h"

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

constexpr const char* kClass = "PoolPrimitive";

struct PoolBaton {
  std::shared_ptr<const PoolKernel> kernel;
  const float* src;
  float* dst;
  void Run() const { kernel->Execute(src, dst); }
  const char* Context() const { return "PoolPrimitive.run"; }
};

struct PoolRunArgs {
  PoolBaton baton;
  Float32View x, y;
};

PoolRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const PoolKernel>& kernel, const char* method) {
  Napi::Env env = info.Env();
  PoolRunArgs args;
  args.x = ExpectFloat32ArrayLazy(env, info[0], kernel->srcElements(), [&] { return std::string(method) + ": x (input " + DimsToString(kernel->params().input) + ")"; });
  const Dims& out = kernel->outputDims();
  args.y = ExpectFloat32ArrayLazy(env, info[1], kernel->dstElements(), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  args.baton = PoolBaton{kernel, args.x.data, args.y.data};
  return args;
}

}  // namespace

Napi::Function PoolPrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod<&PoolPrimitive::Run>("run"),
                         InstanceMethod<&PoolPrimitive::RunSync>("runSync"),
                         InstanceMethod<&PoolPrimitive::Dispose>("dispose"),
                         InstanceAccessor<&PoolPrimitive::OutputDims>("outputDims"),
                         InstanceAccessor<&PoolPrimitive::Implementation>("implementation"),
                         InstanceAccessor<&PoolPrimitive::Threads>("threads"),
                     });
}

PoolPrimitive::PoolPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PoolPrimitive>(info) {
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
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  p.block = ReadInt(env, options, "block", ctx, 0);
  kernel_ = GuardSync(env, ctx, [&] {
    p.kind = ParsePoolKind(kind);
    return std::make_shared<const PoolKernel>(p);
  });
}

const PoolKernel& PoolPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string("PoolPrimitive.") + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value PoolPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  PoolRunArgs args = ReadRunArgs(info, kernel_, "PoolPrimitive.run");
  return PromiseWorker<PoolBaton>::Queue(env, args.baton, {info.This(), args.x.holder, args.y.holder});
}

Napi::Value PoolPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  PoolRunArgs args = ReadRunArgs(info, kernel_, "PoolPrimitive.runSync");
  GuardSync(env, "PoolPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value PoolPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value PoolPrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value PoolPrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

Napi::Value PoolPrimitive::Threads(const Napi::CallbackInfo& info) {
  const int threads = Kernel(info.Env(), "threads").params().threads;
  return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
}

}  // namespace switchyard
