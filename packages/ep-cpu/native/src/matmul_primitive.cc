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
  const float* bias;
  float* y;
  void Run() const { kernel->Execute(a, b, bias, y); }
  const char* Context() const { return "MatMulPrimitive.run"; }
};

struct MatMulRunArgs {
  MatMulBaton baton;
  Float32View a, b, bias, y;
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
  const int64_t n = out[out.size() - 1];
  if (p.hasBias && !kernel->biasPacked()) {
    args.bias = ExpectFloat32Array(env, info[3], n, method + ": bias (" + std::to_string(n) + " elements)");
  } else if (!IsNullish(info[3])) {
    ThrowJs(env, "INVALID_ARGUMENT", method + (p.hasBias ? ": bias must be absent (packed at construction)" : ": bias must be absent (built without hasBias)"), true);
  }
  args.baton = MatMulBaton{kernel, args.a.data, args.b.data, args.bias.data, args.y.data};
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
  const bool fuseRelu = ReadBool(env, options, "fuseRelu", ctx, false);
  const std::string activation = ReadString(env, options, "activation", ctx, fuseRelu ? "relu" : "none");
  p.epilogue.activation = GuardSync(env, ctx, [&] { return ParseActivation(activation, ctx); });
  p.epilogue.alpha = static_cast<float>(ReadNumber(env, options, "activationAlpha", ctx, 0.0));
  p.epilogue.beta = static_cast<float>(ReadNumber(env, options, "activationBeta", ctx, 0.0));
  p.hasBias = ReadBool(env, options, "hasBias", ctx, false);
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  const Dims out = GuardSync(env, ctx, [&] { return MatMulOutputDims(p); });
  Float32View b = ReadOptionalFloat32Array(env, options, "b", ElementCount(p.b, "B"), ctx);
  Float32View bias;
  if (p.hasBias) bias = ReadOptionalFloat32Array(env, options, "bias", out[out.size() - 1], ctx);
  else if (!IsNullish(options.Get("bias"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.bias given but hasBias is false", true);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const MatMulKernel>(p, b.data, bias.data); });
}

const MatMulKernel& MatMulPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string("MatMulPrimitive.") + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value MatMulPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  MatMulRunArgs args = ReadRunArgs(info, kernel_, "MatMulPrimitive.run");
  return PromiseWorker<MatMulBaton>::Queue(env, args.baton, {info.This(), args.a.holder, args.b.holder, args.bias.holder, args.y.holder});
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
