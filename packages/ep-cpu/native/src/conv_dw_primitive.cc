#include "conv_dw_primitive.h"

#include <array>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, y) and runSync(x, y): the buffers in ConvDwKernel::Execute's order.
std::array<Float32View, 2> ReadRunArgs(const Napi::CallbackInfo& info, const ConvDwKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Float32View x = ExpectFloat32ArrayLazy(env, info[0], kernel.srcElements(), [&] {
    return std::string(method) + ": x (input " + DimsToString(kernel.params().input) + ")";
  });
  const Float32View y = ExpectFloat32ArrayLazy(env, info[1], kernel.dstElements(), [&] {
    return std::string(method) + ": y (output " + DimsToString(kernel.outputDims()) + ")";
  });
  return {x, y};
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
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(env);
}

ConvDwPrimitive::ConvDwPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ConvDwPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ConvDwParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.channels = ReadInt(env, options, "channels", ctx, 0);
  p.stride = ReadInt(env, options, "stride", ctx, 1);
  p.pointwise = ReadActivation(env, options, "activation", "activationAlpha", "activationBeta", ctx);
  p.depthwise = ReadActivation(env, options, "dwActivation", "dwActivationAlpha", "dwActivationBeta", ctx);
  p.threads = ThreadsOption(env, options, ctx);
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

}  // namespace switchyard
