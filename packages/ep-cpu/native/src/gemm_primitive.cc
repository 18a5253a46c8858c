#include "gemm_primitive.h"

#include <cstring>

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

constexpr const char* kClass = "GemmPrimitive";

struct GemmBaton {
  std::shared_ptr<const GemmKernel> kernel;
  const float* a;
  const float* b;
  const float* c;
  float* y;
  void Run() const { kernel->Execute(a, b, c, y); }
  const char* Context() const { return "GemmPrimitive.run"; }
};

struct GemmRunArgs {
  GemmBaton baton;
  Float32View a, b, c, y;
};

int64_t CCount(const Dims& c) {
  int64_t n = 1;
  for (auto d : c) n *= d;
  return n;
}

GemmRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const GemmKernel>& kernel, const char* method) {
  Napi::Env env = info.Env();
  const GemmParams& p = kernel->params();
  GemmRunArgs args;
  args.a = ExpectFloat32ArrayLazy(env, info[0], ElementCount(p.a, "A"), [&] { return std::string(method) + ": a (A " + DimsToString(p.a) + ")"; });
  if (kernel->bPacked()) {
    if (!IsNullish(info[1])) ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": b must be null (B was packed at construction)", true);
  } else {
    args.b = ExpectFloat32ArrayLazy(env, info[1], ElementCount(p.b, "B"), [&] { return std::string(method) + ": b (B " + DimsToString(p.b) + ")"; });
  }
  const bool wantsC = p.hasC && !kernel->cPacked() && std::strcmp(kernel->cMode(), "none") != 0;
  if (wantsC) {
    args.c = ExpectFloat32ArrayLazy(env, info[2], CCount(p.c), [&] { return std::string(method) + ": c (C " + DimsToString(p.c) + ")"; });
  } else if (!IsNullish(info[2])) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": c must be null (C is absent, unused with beta = 0, or packed at construction)", true);
  }
  const Dims& out = kernel->outputDims();
  args.y = ExpectFloat32ArrayLazy(env, info[3], ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  args.baton = GemmBaton{kernel, args.a.data, args.b.data, args.c.data, args.y.data};
  return args;
}

}  // namespace

Napi::Function GemmPrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod<&GemmPrimitive::Run>("run"),
                         InstanceMethod<&GemmPrimitive::RunSync>("runSync"),
                         InstanceMethod<&GemmPrimitive::Dispose>("dispose"),
                         InstanceAccessor<&GemmPrimitive::OutputDims>("outputDims"),
                         InstanceAccessor<&GemmPrimitive::Implementation>("implementation"),
                         InstanceAccessor<&GemmPrimitive::Threads>("threads"),
                         InstanceAccessor<&GemmPrimitive::WeightsPacked>("weightsPacked"),
                         InstanceAccessor<&GemmPrimitive::CMode>("cMode"),
                     });
}

GemmPrimitive::GemmPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GemmPrimitive>(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new GemmPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  GemmParams p;
  p.a = ReadDims(env, options, "aDims", ctx, true);
  p.b = ReadDims(env, options, "bDims", ctx, true);
  p.transA = ReadBool(env, options, "transA", ctx, false);
  p.transB = ReadBool(env, options, "transB", ctx, false);
  p.alpha = static_cast<float>(ReadNumber(env, options, "alpha", ctx, 1.0));
  p.beta = static_cast<float>(ReadNumber(env, options, "beta", ctx, 1.0));
  p.hasC = !IsNullish(options.Get("cDims"));
  if (p.hasC) p.c = ReadDims(env, options, "cDims", ctx, true);
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  const std::string split = ReadString(env, options, "channelSplit", ctx, "auto");
  p.channelSplit = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(split, "channelSplit", ctx); });
  GuardSync(env, ctx, [&] {
    GemmOutputDims(p);
    if (p.hasC) ElementCount(p.c, "Gemm: C");
  });
  Float32View b = ReadOptionalFloat32Array(env, options, "b", ElementCount(p.b, "B"), ctx);
  Float32View c;
  if (p.hasC) c = ReadOptionalFloat32Array(env, options, "c", CCount(p.c), ctx);
  else if (!IsNullish(options.Get("c"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.c given without cDims", true);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const GemmKernel>(p, b.data, c.data); });
}

const GemmKernel& GemmPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string("GemmPrimitive.") + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value GemmPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  GemmRunArgs args = ReadRunArgs(info, kernel_, "GemmPrimitive.run");
  return PromiseWorker<GemmBaton>::Queue(env, args.baton, {info.This(), args.a.holder, args.b.holder, args.c.holder, args.y.holder});
}

Napi::Value GemmPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  GemmRunArgs args = ReadRunArgs(info, kernel_, "GemmPrimitive.runSync");
  GuardSync(env, "GemmPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value GemmPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value GemmPrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value GemmPrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

Napi::Value GemmPrimitive::Threads(const Napi::CallbackInfo& info) {
  const int threads = Kernel(info.Env(), "threads").params().threads;
  return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
}

Napi::Value GemmPrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").bPacked());
}

Napi::Value GemmPrimitive::CMode(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "cMode").cMode());
}

}  // namespace switchyard
