#include "conv_primitive.h"

#include <array>
#include <vector>

#include "conv_primitive_desc.h"
#include "conv_tap_trim.h"
#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/instance_tag.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, w | null, b | null, y, z?) and runSync(...): the buffers in ConvKernel::Execute's order (z before y).
std::array<Float32View, 5> ReadRunArgs(const Napi::CallbackInfo& info, const ConvKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const ConvParams& p = kernel.params();
  Float32View x, w, b, y, z;
  x = ExpectFloat32ArrayLazy(env, info[0], kernel.srcElements(), [&] { return std::string(method) + ": x (input " + DimsToString(p.input) + ")"; });
  if (kernel.weightsPacked()) {
    if (!IsNullish(info[1])) ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": w must be null (weights were packed at construction)", true);
  } else {
    w = ExpectFloat32ArrayLazy(env, info[1], ElementCount(p.weights, "weights"), [&] { return std::string(method) + ": w (weights " + DimsToString(p.weights) + ")"; });
  }
  if (!p.hasBias || kernel.biasPacked()) {
    if (!IsNullish(info[2])) {
      ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + (p.hasBias ? ": b must be null (bias was packed at construction)" : ": b must be null (built without bias)"), true);
    }
  } else {
    b = ExpectFloat32ArrayLazy(env, info[2], p.weights[0], [&] { return std::string(method) + ": b (bias)"; });
  }
  const Dims& out = kernel.outputDims();
  y = ExpectFloat32ArrayLazy(env, info[3], kernel.dstElements(), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  if (p.epilogue.sum) {
    z = ExpectFloat32ArrayLazy(env, info[4], kernel.sumElements(), [&] { return std::string(method) + ": z (sum input, shaped like y " + DimsToString(out) + ")"; });
  } else if (!IsNullish(info[4])) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": z must be absent (built without hasSum)", true);
  }
  return {x, w, b, z, y};
}

}  // namespace

Napi::Function ConvPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(
      env, {StaticMethod<&ConvPrimitive::Algorithm>("algorithm"),
            InstanceAccessor<&ConvPrimitive::WeightsPacked>("weightsPacked"),
            InstanceAccessor<&ConvPrimitive::WeightsUnpackable>("weightsUnpackable"),
            InstanceAccessor<&ConvPrimitive::PrimitiveLayouts>("primitiveLayouts")});
}

namespace {

// Everything in the options but the weight and bias arrays; validated (ConvOutputDims fills defaults).
ConvParams ReadConvParams(Napi::Env env, const Napi::Object& options, const std::string& ctx) {
  ConvParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.weights = ReadDims(env, options, "weightDims", ctx, true);
  p.group = ReadInt(env, options, "group", ctx, 1);
  p.strides = ReadDims(env, options, "strides", ctx, false);
  p.dilations = ReadDims(env, options, "dilations", ctx, false);
  p.padsBegin = ReadDims(env, options, "padsBegin", ctx, false);
  p.padsEnd = ReadDims(env, options, "padsEnd", ctx, false);
  p.hasBias = ReadBool(env, options, "hasBias", ctx, false);
  const bool fuseRelu = ReadBool(env, options, "fuseRelu", ctx, false);
  const std::string activation = ReadString(env, options, "activation", ctx, fuseRelu ? "relu" : "none");
  p.epilogue.activation = GuardSync(env, ctx, [&] { return ParseActivation(activation, ctx); });
  p.epilogue.alpha = static_cast<float>(ReadNumber(env, options, "activationAlpha", ctx, 0.0));
  p.epilogue.beta = static_cast<float>(ReadNumber(env, options, "activationBeta", ctx, 0.0));
  p.epilogue.sum = ReadBool(env, options, "hasSum", ctx, false);
  p.threads = ThreadsOption(env, options, ctx);
  p.srcBlock = ReadInt(env, options, "srcBlock", ctx, 0);
  p.dstBlock = ReadInt(env, options, "dstBlock", ctx, 0);
  p.sumBlock = ReadInt(env, options, "sumBlock", ctx, p.dstBlock);
  const std::string winograd = ReadString(env, options, "winograd", ctx, "auto");
  p.winograd = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(winograd, "winograd", ctx); });
  const std::string im2col = ReadString(env, options, "im2col", ctx, "auto");
  p.im2col = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(im2col, "im2col", ctx); });
  const std::string split = ReadString(env, options, "channelSplit", ctx, "auto");
  p.channelSplit = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(split, "channelSplit", ctx); });
  const std::string pass = ReadString(env, options, "activationPass", ctx, "auto");
  p.activationPass = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(pass, "activationPass", ctx); });
  GuardSync(env, ctx, [&] { ConvOutputDims(p); });  // validates before array lengths are derived from p
  return p;
}

}  // namespace

ConvPrimitive::ConvPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ConvPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ConvParams p = ReadConvParams(env, options, ctx);
  Float32View weights = ReadOptionalFloat32Array(env, options, "weights", ElementCount(p.weights, "weights"), ctx);
  Float32View bias;
  if (p.hasBias) bias = ReadOptionalFloat32Array(env, options, "bias", p.weights[0], ctx);
  else if (!IsNullish(options.Get("bias"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.bias given but hasBias is false", true);
  // packedFrom: another primitive of the node holding the weights packed (the model's copy was
  // released); they are unpacked from it into a scratch copy and packed for this shape.
  std::vector<float> unpacked;
  Napi::Value from = options.Get("packedFrom");
  if (!IsNullish(from)) {
    if (weights.data) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.weights and options.packedFrom are exclusive", true);
    const ConvPrimitive* donor = UnwrapArgument<ConvPrimitive>(env, from, ctx + ": options.packedFrom");
    const ConvKernel& source = donor->Kernel(env, "packedFrom");
    if (source.params().weights != p.weights || source.params().group != p.group) {
      ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom holds weights " + DimsToString(source.params().weights) + " (group " +
                                          std::to_string(source.params().group) + "), not " + DimsToString(p.weights) + " (group " + std::to_string(p.group) + ")", true);
    }
    if (!source.weightsUnpackable()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom holds weights that cannot be unpacked (" + source.implementation() + ")", true);
    GuardSync(env, ctx, [&] {
      unpacked.resize(static_cast<size_t>(ElementCount(p.weights, "weights")));
      source.UnpackWeights(unpacked.data());
      return 0;
    });
    weights.data = unpacked.data();
  }
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ConvKernel>(p, weights.data, bias.data); });
}

Napi::Value ConvPrimitive::Algorithm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "ConvPrimitive.algorithm";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ConvParams p = ReadConvParams(env, options, ctx);
  const bool constWeights = !IsNullish(options.Get("weights"));
  const char* algorithm = GuardSync(env, ctx, [&] {
    Dims out = ConvOutputDims(p);
    // Constant weights lose the taps that read only padding: the algorithm is the trimmed conv's.
    if (constWeights) {
      if (auto trimmed = WithoutPaddingTaps(p, out)) p = *trimmed;
    }
    if (WinogradConv::Chooses(p, out, constWeights, p.winograd)) return "winograd";
    if (Im2colConv::Chooses(p, out, constWeights, p.im2col)) return "im2col";
    ThreadScope threads(p.threads);
    return IsOneDnnWinograd(ChooseConvPrimitiveDesc(p, out, constWeights)) ? "winograd" : "onednn";
  });
  return Napi::String::New(env, algorithm);
}

Napi::Value ConvPrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").weightsPacked());
}

Napi::Value ConvPrimitive::WeightsUnpackable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsUnpackable").weightsUnpackable());
}

Napi::Value ConvPrimitive::PrimitiveLayouts(const Napi::CallbackInfo& info) {
  const ConvKernel& k = Kernel(info.Env(), "primitiveLayouts");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("src", Napi::Number::New(info.Env(), static_cast<double>(k.primitiveSrcBlock())));
  out.Set("dst", Napi::Number::New(info.Env(), static_cast<double>(k.primitiveDstBlock())));
  return out;
}

}  // namespace switchyard
