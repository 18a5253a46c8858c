#include "conv_dw_primitive.h"

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

constexpr const char* kClass = "ConvDwPrimitive";

struct ConvDwBaton {
  std::shared_ptr<const ConvDwKernel> kernel;
  const float* src;
  float* dst;
  void Run() const { kernel->Execute(src, dst); }
  const char* Context() const { return "ConvDwPrimitive.run"; }
};

struct ConvDwRunArgs {
  ConvDwBaton baton;
  Float32View x, y;
};

ConvDwRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const ConvDwKernel>& kernel, const std::string& method) {
  Napi::Env env = info.Env();
  ConvDwRunArgs args;
  args.x = ExpectFloat32Array(env, info[0], kernel->srcElements(), method + ": x (input " + DimsToString(kernel->params().input) + ")");
  args.y = ExpectFloat32Array(env, info[1], kernel->dstElements(), method + ": y (output " + DimsToString(kernel->outputDims()) + ")");
  args.baton = ConvDwBaton{kernel, args.x.data, args.y.data};
  return args;
}

// An activation given as options[name], options[alpha], options[beta] (as ConvPrimitive takes it).
Epilogue ReadActivation(Napi::Env env, const Napi::Object& options, const char* name, const char* alpha, const char* beta,
                        const std::string& ctx) {
  Epilogue e;
  const std::string activation = ReadString(env, options, name, ctx, "none");
  e.activation = GuardSync(env, ctx, [&] { return ParseActivation(activation, ctx); });
  e.alpha = static_cast<float>(ReadNumber(env, options, alpha, ctx, 0.0));
  e.beta = static_cast<float>(ReadNumber(env, options, beta, ctx, 0.0));
  return e;
}

}  // namespace

Napi::Function ConvDwPrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod<&ConvDwPrimitive::Run>("run"),
                         InstanceMethod<&ConvDwPrimitive::RunSync>("runSync"),
                         InstanceMethod<&ConvDwPrimitive::Dispose>("dispose"),
                         InstanceAccessor<&ConvDwPrimitive::OutputDims>("outputDims"),
                         InstanceAccessor<&ConvDwPrimitive::Implementation>("implementation"),
                         InstanceAccessor<&ConvDwPrimitive::Threads>("threads"),
                     });
}

ConvDwPrimitive::ConvDwPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ConvDwPrimitive>(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ConvDwPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ConvDwParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.channels = ReadInt(env, options, "channels", ctx, 0);
  p.stride = ReadInt(env, options, "stride", ctx, 1);
  p.pointwise = ReadActivation(env, options, "activation", "activationAlpha", "activationBeta", ctx);
  p.depthwise = ReadActivation(env, options, "dwActivation", "dwActivationAlpha", "dwActivationBeta", ctx);
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  p.srcBlock = ReadInt(env, options, "srcBlock", ctx, 0);
  p.dstBlock = ReadInt(env, options, "dstBlock", ctx, 0);
  const std::string split = ReadString(env, options, "channelSplit", ctx, "auto");
  p.channelSplit = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(split, "channelSplit", ctx); });
  if (p.input.size() != 4 || p.channels < 1) {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": inputDims must be [N, C, H, W] and channels >= 1", true);
  }
  const int64_t m = p.channels;
  const int64_t c = p.input[1];
  Float32View weights = ReadOptionalFloat32Array(env, options, "weights", m * c, ctx);
  Float32View bias = ReadOptionalFloat32Array(env, options, "bias", m, ctx);
  Float32View dwWeights = ReadOptionalFloat32Array(env, options, "dwWeights", m * 9, ctx);
  Float32View dwBias = ReadOptionalFloat32Array(env, options, "dwBias", m, ctx);
  if (!weights.data || !dwWeights.data) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": weights and dwWeights are required", true);
  p.hasBias = bias.data != nullptr;
  p.hasDwBias = dwBias.data != nullptr;
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ConvDwKernel>(p, weights.data, bias.data, dwWeights.data, dwBias.data); });
}

const ConvDwKernel& ConvDwPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string("ConvDwPrimitive.") + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value ConvDwPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  ConvDwRunArgs args = ReadRunArgs(info, kernel_, "ConvDwPrimitive.run");
  return PromiseWorker<ConvDwBaton>::Queue(env, args.baton, {info.This(), args.x.holder, args.y.holder});
}

Napi::Value ConvDwPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  ConvDwRunArgs args = ReadRunArgs(info, kernel_, "ConvDwPrimitive.runSync");
  GuardSync(env, "ConvDwPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value ConvDwPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value ConvDwPrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value ConvDwPrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

Napi::Value ConvDwPrimitive::Threads(const Napi::CallbackInfo& info) {
  const int threads = Kernel(info.Env(), "threads").params().threads;
  return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
}

}  // namespace switchyard
