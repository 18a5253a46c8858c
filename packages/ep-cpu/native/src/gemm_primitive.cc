#include "gemm_primitive.h"

#include <array>
#include <cstring>
#include <vector>

#include <switchyard/errors.h>
#include <switchyard/instance_tag.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

int64_t CCount(const Dims& c) {
  int64_t n = 1;
  for (auto d : c) n *= d;
  return n;
}

// run(a, b | null, c | null, y) and runSync(...): the buffers in GemmKernel::Execute's order.
std::array<Float32View, 4> ReadRunArgs(const Napi::CallbackInfo& info, const GemmKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const GemmParams& p = kernel.params();
  Float32View a, b, c, y;
  a = ExpectFloat32ArrayLazy(env, info[0], ElementCount(p.a, "A"), [&] { return std::string(method) + ": a (A " + DimsToString(p.a) + ")"; });
  if (kernel.bPacked()) {
    if (!IsNullish(info[1])) ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": b must be null (B was packed at construction)", true);
  } else {
    b = ExpectFloat32ArrayLazy(env, info[1], ElementCount(p.b, "B"), [&] { return std::string(method) + ": b (B " + DimsToString(p.b) + ")"; });
  }
  const bool wantsC = p.hasC && !kernel.cPacked() && std::strcmp(kernel.cMode(), "none") != 0;
  if (wantsC) {
    c = ExpectFloat32ArrayLazy(env, info[2], CCount(p.c), [&] { return std::string(method) + ": c (C " + DimsToString(p.c) + ")"; });
  } else if (!IsNullish(info[2])) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": c must be null (C is absent, unused with beta = 0, or packed at construction)", true);
  }
  const Dims& out = kernel.outputDims();
  y = ExpectFloat32ArrayLazy(env, info[3], ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {a, b, c, y};
}

}  // namespace

Napi::Function GemmPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadRunArgs>(
      env, {InstanceAccessor<&GemmPrimitive::WeightsPacked>("weightsPacked"),
            InstanceAccessor<&GemmPrimitive::CMode>("cMode")});
}

GemmPrimitive::GemmPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
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
  p.threads = ThreadsOption(env, options, ctx);
  const std::string split = ReadString(env, options, "channelSplit", ctx, "auto");
  p.channelSplit = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(split, "channelSplit", ctx); });
  const std::string skinny = ReadString(env, options, "skinny", ctx, "auto");
  p.skinny = GuardSync(env, ctx, [&] { return ParseAlgorithmMode(skinny, "skinny", ctx); });
  GuardSync(env, ctx, [&] {
    GemmOutputDims(p);
    if (p.hasC) ElementCount(p.c, "Gemm: C");
  });
  Float32View b = ReadOptionalFloat32Array(env, options, "b", ElementCount(p.b, "B"), ctx);
  // packedFrom: another primitive of the node holding B packed (the model's copy was released); B is
  // unpacked from it into a scratch copy and packed for this shape.
  std::vector<float> unpacked;
  Napi::Value from = options.Get("packedFrom");
  if (!IsNullish(from)) {
    if (b.data) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.b and options.packedFrom are exclusive", true);
    const GemmPrimitive* donor = UnwrapArgument<GemmPrimitive>(env, from, ctx + ": options.packedFrom");
    const GemmKernel& source = donor->Kernel(env, "packedFrom");
    if (source.params().b != p.b || source.params().transB != p.transB) {
      ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom holds B " + DimsToString(source.params().b) + (source.params().transB ? " (transB)" : "") +
          ", not " + DimsToString(p.b) + (p.transB ? " (transB)" : ""), true);
    }
    if (!source.bPacked()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.packedFrom did not pack its B", true);
    GuardSync(env, ctx, [&] {
      unpacked.resize(static_cast<size_t>(ElementCount(p.b, "B")));
      source.UnpackB(unpacked.data());
      return 0;
    });
    b.data = unpacked.data();
  }
  Float32View c;
  if (p.hasC) c = ReadOptionalFloat32Array(env, options, "c", CCount(p.c), ctx);
  else if (!IsNullish(options.Get("c"))) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.c given without cDims", true);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const GemmKernel>(p, b.data, c.data); });
}

Napi::Value GemmPrimitive::WeightsPacked(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Kernel(info.Env(), "weightsPacked").bPacked());
}

Napi::Value GemmPrimitive::CMode(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "cMode").cMode());
}

}  // namespace switchyard
