#include "matmul_primitive.h"

#include <array>
#include <vector>

#include <switchyard/errors.h>
#include <switchyard/instance_tag.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(a, b | null, y, bias?) and runSync(...): the buffers in MatMulKernel::Execute's order (bias before y).
std::array<Float32View, 4> ReadRunArgs(const Napi::CallbackInfo& info, const MatMulKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const MatMulParams& p = kernel.params();
  Float32View a, b, bias, y;
  a = ExpectFloat32ArrayLazy(env, info[0], ElementCount(p.a, "A"), [&] { return std::string(method) + ": a (A " + DimsToString(p.a) + ")"; });
  if (kernel.bPacked()) {
    if (!IsNullish(info[1])) ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": b must be null (B was packed at construction)", true);
  } else {
    b = ExpectFloat32ArrayLazy(env, info[1], ElementCount(p.b, "B"), [&] { return std::string(method) + ": b (B " + DimsToString(p.b) + ")"; });
  }
  const Dims& out = kernel.outputDims();
  y = ExpectFloat32ArrayLazy(env, info[2], ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  const int64_t n = out[out.size() - 1];
  if (p.hasBias && !kernel.biasPacked()) {
    bias = ExpectFloat32ArrayLazy(env, info[3], n, [&] { return std::string(method) + ": bias (" + std::to_string(n) + " elements)"; });
  } else if (!IsNullish(info[3])) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + (p.hasBias ? ": bias must be absent (packed at construction)" : ": bias must be absent (built without hasBias)"), true);
  }
  return {a, b, bias, y};
}

}  // namespace

Napi::Function MatMulPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(
      env, {InstanceAccessor<&MatMulPrimitive::WeightsPacked>("weightsPacked")});
}

MatMulPrimitive::MatMulPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
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
  p.threads = ThreadsOption(env, options, ctx);
  const Dims out = GuardSync(env, ctx, [&] { return MatMulOutputDims(p); });
  Float32View b = ReadOptionalFloat32Array(env, options, "b", ElementCount(p.b, "B"), ctx);
  Float32View bias;
  if (p.hasBias) bias = ReadOptionalFloat32Array(env, options, "bias", out[out.size() - 1], ctx);
  else if (!IsNullish(options.Get("bias"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.bias given but hasBias is false", true);
  // packedFrom: another primitive of the node holding B packed (the model's copy was released); B is
  // unpacked from it into a scratch copy and packed for this shape.
  std::vector<float> unpacked;
  Napi::Value from = options.Get("packedFrom");
  if (!IsNullish(from)) {
    if (b.data) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.b and options.packedFrom are exclusive", true);
    const MatMulPrimitive* donor = UnwrapArgument<MatMulPrimitive>(env, from, ctx + ": options.packedFrom");
    const MatMulKernel& source = donor->Kernel(env, "packedFrom");
    if (source.params().b != p.b) {
      ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom holds B " + DimsToString(source.params().b) + ", not " + DimsToString(p.b), true);
    }
    if (!source.bPacked()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom did not pack its B", true);
    GuardSync(env, ctx, [&] {
      unpacked.resize(static_cast<size_t>(ElementCount(p.b, "B")));
      source.UnpackB(unpacked.data());
      return 0;
    });
    b.data = unpacked.data();
  }
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const MatMulKernel>(p, b.data, bias.data); });
}

Napi::Value MatMulPrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").bPacked());
}

}  // namespace switchyard
