#include "matmul_primitive.h"

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

constexpr const char* kClass = "MatMulPrimitive";

// Plain data for one execution: no V8 handles.
struct MatMulBaton {
  std::shared_ptr<const MatMulKernel> kernel;
  const float* a;
  const float* b;
  float* y;
  void Run() const { kernel->Execute(a, b, y); }
  const char* Context() const { return "MatMulPrimitive.run"; }
};

struct MatMulRunArgs {
  MatMulBaton baton;
  Float32View a, b, y;
};

MatMulRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const MatMulKernel>& kernel, const std::string& method) {
  Napi::Env env = info.Env();
  const MatMulParams& p = kernel->params();
  MatMulRunArgs args;
  args.a = ExpectFloat32Array(env, info[0], ElementCount(p.a, "A"), method + ": a (A " + DimsToString(p.a) + ")");
  if (kernel->bPacked()) {
    if (!IsNullish(info[1])) ThrowJs(env, "INVALID_ARGUMENT", method + ": b must be null (B was packed at construction)", true);
  } else {
    args.b = ExpectFloat32Array(env, info[1], ElementCount(p.b, "B"), method + ": b (B " + DimsToString(p.b) + ")");
  }
  const Dims& out = kernel->outputDims();
  args.y = ExpectFloat32Array(env, info[2], ElementCount(out, "output"), method + ": y (output " + DimsToString(out) + ")");
  args.baton = MatMulBaton{kernel, args.a.data, args.b.data, args.y.data};
  return args;
}

}  // namespace

Napi::Function MatMulPrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod<&MatMulPrimitive::Run>("run"),
                         InstanceMethod<&MatMulPrimitive::RunSync>("runSync"),
                         InstanceMethod<&MatMulPrimitive::Dispose>("dispose"),
                         InstanceAccessor<&MatMulPrimitive::OutputDims>("outputDims"),
                         InstanceAccessor<&MatMulPrimitive::Implementation>("implementation"),
                         InstanceAccessor<&MatMulPrimitive::Threads>("threads"),
                         InstanceAccessor<&MatMulPrimitive::WeightsPacked>("weightsPacked"),
                     });
}

MatMulPrimitive::MatMulPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MatMulPrimitive>(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new MatMulPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  MatMulParams p;
  p.a = ReadDims(env, options, "aDims", ctx, true);
  p.b = ReadDims(env, options, "bDims", ctx, true);
  p.fuseRelu = ReadBool(env, options, "fuseRelu", ctx, false);
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  GuardSync(env, ctx, [&] { MatMulOutputDims(p); });
  Float32View b = ReadOptionalFloat32Array(env, options, "b", ElementCount(p.b, "B"), ctx);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const MatMulKernel>(p, b.data); });
}

const MatMulKernel& MatMulPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string("MatMulPrimitive.") + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value MatMulPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  MatMulRunArgs args = ReadRunArgs(info, kernel_, "MatMulPrimitive.run");
  return PromiseWorker<MatMulBaton>::Queue(env, args.baton, {info.This(), args.a.holder, args.b.holder, args.y.holder});
}

Napi::Value MatMulPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  MatMulRunArgs args = ReadRunArgs(info, kernel_, "MatMulPrimitive.runSync");
  GuardSync(env, "MatMulPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value MatMulPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value MatMulPrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value MatMulPrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

Napi::Value MatMulPrimitive::Threads(const Napi::CallbackInfo& info) {
  const int threads = Kernel(info.Env(), "threads").params().threads;
  return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
}

Napi::Value MatMulPrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").bPacked());
}

}  // namespace switchyard
