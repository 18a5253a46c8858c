#include "conv_transpose_primitive.h"

#include <array>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(x, w | null, b | null, y) and runSync(...): the buffers in ConvTransposeKernel::Execute's order.
std::array<Float32View, 4> ReadRunArgs(const Napi::CallbackInfo& info, const ConvTransposeKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const ConvTransposeParams& p = kernel.params();
  Float32View x, w, b, y;
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
    b = ExpectFloat32ArrayLazy(env, info[2], kernel.outputDims()[1], [&] { return std::string(method) + ": b (bias)"; });
  }
  y = ExpectFloat32ArrayLazy(env, info[3], kernel.dstElements(), [&] { return std::string(method) + ": y (output " + DimsToString(kernel.outputDims()) + ")"; });
  return {x, w, b, y};
}

}  // namespace

Napi::Function ConvTransposePrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(
      env, {InstanceAccessor<&ConvTransposePrimitive::WeightsPacked>("weightsPacked"),
            InstanceAccessor<&ConvTransposePrimitive::PrimitiveLayouts>("primitiveLayouts")});
}

ConvTransposePrimitive::ConvTransposePrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new ConvTransposePrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  ConvTransposeParams p;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.weights = ReadDims(env, options, "weightDims", ctx, true);
  p.group = ReadInt(env, options, "group", ctx, 1);
  p.strides = ReadDims(env, options, "strides", ctx, false);
  p.dilations = ReadDims(env, options, "dilations", ctx, false);
  p.padsBegin = ReadDims(env, options, "padsBegin", ctx, false);
  p.padsEnd = ReadDims(env, options, "padsEnd", ctx, false);
  p.outputPadding = ReadDims(env, options, "outputPadding", ctx, false);
  p.hasBias = ReadBool(env, options, "hasBias", ctx, false);
  const std::string activation = ReadString(env, options, "activation", ctx, "none");
  p.epilogue.activation = GuardSync(env, ctx, [&] { return ParseActivation(activation, ctx); });
  p.epilogue.alpha = static_cast<float>(ReadNumber(env, options, "activationAlpha", ctx, 0.0));
  p.epilogue.beta = static_cast<float>(ReadNumber(env, options, "activationBeta", ctx, 0.0));
  p.threads = ThreadsOption(env, options, ctx);
  p.srcBlock = ReadInt(env, options, "srcBlock", ctx, 0);
  p.dstBlock = ReadInt(env, options, "dstBlock", ctx, 0);
  const std::string depthToSpace = ReadString(env, options, "depthToSpace", ctx, "auto");
  p.depthToSpace = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(depthToSpace, "depthToSpace", ctx); });
  GuardSync(env, ctx, [&] { ConvTransposeOutputDims(p); });  // validates before array lengths are derived from p
  Float32View weights = ReadOptionalFloat32Array(env, options, "weights", ElementCount(p.weights, "weights"), ctx);
  Float32View bias;
  if (p.hasBias) bias = ReadOptionalFloat32Array(env, options, "bias", p.weights[1] * p.group, ctx);
  else if (!IsNullish(options.Get("bias"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.bias given but hasBias is false", true);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ConvTransposeKernel>(p, weights.data, bias.data); });
}

Napi::Value ConvTransposePrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").weightsPacked());
}

Napi::Value ConvTransposePrimitive::PrimitiveLayouts(const Napi::CallbackInfo& info) {
  const ConvTransposeKernel& k = Kernel(info.Env(), "primitiveLayouts");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("src", Napi::Number::New(info.Env(), static_cast<double>(k.primitiveSrcBlock())));
  out.Set("dst", Napi::Number::New(info.Env(), static_cast<double>(k.primitiveDstBlock())));
  return out;
}

}  // namespace switchyard
