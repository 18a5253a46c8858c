#include "strided_matmul_primitive.h"

#include <array>

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// run(a, b, mask | null, y) and runSync(...): the buffers in StridedMatMulKernel::Execute's order.
std::array<Float32View, 4> ReadRunArgs(const Napi::CallbackInfo& info, const StridedMatMulKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const StridedMatMulParams& p = kernel.params();
  Float32View a, b, mask, y;
  a = ExpectFloat32ArrayLazy(env, info[0], ElementCount(p.a, "A"), [&] { return std::string(method) + ": a (A " + DimsToString(p.a) + ")"; });
  b = ExpectFloat32ArrayLazy(env, info[1], ElementCount(p.b, "B"), [&] { return std::string(method) + ": b (B " + DimsToString(p.b) + ")"; });
  if (p.hasMask) {
    int64_t n = 1;
    for (auto d : p.mask) n *= d;
    mask = ExpectFloat32ArrayLazy(env, info[2], n, [&] { return std::string(method) + ": mask (" + DimsToString(p.mask) + ")"; });
  } else if (!IsNullish(info[2])) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": mask must be null (built without maskDims)", true);
  }
  const Dims& out = kernel.outputDims();
  y = ExpectFloat32ArrayLazy(env, info[3], ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {a, b, mask, y};
}

std::vector<int> ReadPerm(Napi::Env env, const Napi::Object& options, const char* key, const std::string& ctx) {
  const Dims dims = ReadDims(env, options, key, ctx, false);
  return std::vector<int>(dims.begin(), dims.end());
}

}  // namespace

Napi::Function StridedMatMulPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kWithoutThreads, ReadRunArgs>(env);
}

StridedMatMulPrimitive::StridedMatMulPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new StridedMatMulPrimitive";
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  StridedMatMulParams p;
  p.a = ReadDims(env, options, "aDims", ctx, true);
  p.b = ReadDims(env, options, "bDims", ctx, true);
  p.permA = ReadPerm(env, options, "permA", ctx);
  p.permB = ReadPerm(env, options, "permB", ctx);
  p.permY = ReadPerm(env, options, "permY", ctx);
  p.scale = static_cast<float>(ReadNumber(env, options, "scale", ctx, 1.0));
  p.hasMask = !IsNullish(options.Get("maskDims"));
  if (p.hasMask) p.mask = ReadDims(env, options, "maskDims", ctx, true);
  p.threads = ThreadsOption(env, options, ctx);
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const StridedMatMulKernel>(p); });
}

}  // namespace switchyard
