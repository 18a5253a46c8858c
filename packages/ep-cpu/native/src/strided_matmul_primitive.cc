#include "strided_matmul_primitive.h"

#include "errors.h"
#include "js_args.h"
#include "promise_worker.h"

namespace switchyard {

namespace {

constexpr const char* kClass = "StridedMatMulPrimitive";

// Plain data for one execution: no V8 handles.
struct StridedMatMulBaton {
  std::shared_ptr<const StridedMatMulKernel> kernel;
  const float* a;
  const float* b;
  const float* mask;
  float* y;
  void Run() const { kernel->Execute(a, b, mask, y); }
  const char* Context() const { return "StridedMatMulPrimitive.run"; }
};

struct StridedMatMulRunArgs {
  StridedMatMulBaton baton;
  Float32View a, b, mask, y;
};

StridedMatMulRunArgs ReadRunArgs(const Napi::CallbackInfo& info, const std::shared_ptr<const StridedMatMulKernel>& kernel, const std::string& method) {
  Napi::Env env = info.Env();
  const StridedMatMulParams& p = kernel->params();
  StridedMatMulRunArgs args;
  args.a = ExpectFloat32Array(env, info[0], ElementCount(p.a, "A"), method + ": a (A " + DimsToString(p.a) + ")");
  args.b = ExpectFloat32Array(env, info[1], ElementCount(p.b, "B"), method + ": b (B " + DimsToString(p.b) + ")");
  if (p.hasMask) {
    int64_t n = 1;
    for (auto d : p.mask) n *= d;
    args.mask = ExpectFloat32Array(env, info[2], n, method + ": mask (" + DimsToString(p.mask) + ")");
  } else if (!IsNullish(info[2])) {
    ThrowJs(env, "INVALID_ARGUMENT", method + ": mask must be null (built without maskDims)", true);
  }
  const Dims& out = kernel->outputDims();
  args.y = ExpectFloat32Array(env, info[3], ElementCount(out, "output"), method + ": y (output " + DimsToString(out) + ")");
  args.baton = StridedMatMulBaton{kernel, args.a.data, args.b.data, args.mask.data, args.y.data};
  return args;
}

std::vector<int> ReadPerm(Napi::Env env, const Napi::Object& options, const char* key, const std::string& ctx) {
  const Dims dims = ReadDims(env, options, key, ctx, false);
  return std::vector<int>(dims.begin(), dims.end());
}

}  // namespace

Napi::Function StridedMatMulPrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod<&StridedMatMulPrimitive::Run>("run"),
                         InstanceMethod<&StridedMatMulPrimitive::RunSync>("runSync"),
                         InstanceMethod<&StridedMatMulPrimitive::Dispose>("dispose"),
                         InstanceAccessor<&StridedMatMulPrimitive::OutputDims>("outputDims"),
                         InstanceAccessor<&StridedMatMulPrimitive::Implementation>("implementation"),
                     });
}

StridedMatMulPrimitive::StridedMatMulPrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StridedMatMulPrimitive>(info) {
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
  p.threads = static_cast<int>(ReadInt(env, options, "threads", ctx, 0));
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const StridedMatMulKernel>(p); });
}

const StridedMatMulKernel& StridedMatMulPrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string(kClass) + "." + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value StridedMatMulPrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  StridedMatMulRunArgs args = ReadRunArgs(info, kernel_, "StridedMatMulPrimitive.run");
  return PromiseWorker<StridedMatMulBaton>::Queue(env, args.baton, {info.This(), args.a.holder, args.b.holder, args.mask.holder, args.y.holder});
}

Napi::Value StridedMatMulPrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  StridedMatMulRunArgs args = ReadRunArgs(info, kernel_, "StridedMatMulPrimitive.runSync");
  GuardSync(env, "StridedMatMulPrimitive.runSync", [&] { args.baton.Run(); });
  return env.Undefined();
}

Napi::Value StridedMatMulPrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();
  return info.Env().Undefined();
}

Napi::Value StridedMatMulPrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value StridedMatMulPrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

}  // namespace switchyard
