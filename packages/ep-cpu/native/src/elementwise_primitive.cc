#include "elementwise_primitive.h"

#include <string>
#include <utility>
#include <vector>

#include "engine.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include <switchyard/promise_worker.h>
#include <switchyard/instance_tag.h>
#include "thread_count.h"

namespace switchyard {

namespace {

using eltwise::ElementwiseKernel;
using eltwise::Instruction;
using eltwise::Op;
using eltwise::ProgramSpec;

constexpr uint32_t kMaxArrayLength = 1024;  // inputs and instructions: far above any real program

Napi::Array ExpectArray(Napi::Env env, const Napi::Value& value, const std::string& what) {
  if (!value.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", what + " must be an array", true);
  auto array = value.As<Napi::Array>();
  if (array.Length() > kMaxArrayLength) ThrowJs(env, "INVALID_ARGUMENT", what + " has more than " + std::to_string(kMaxArrayLength) + " entries", true);
  return array;
}

// A number that may be NaN or infinite (a constant of the model, an attribute); 0 when absent.
float ReadFloat(Napi::Env env, const Napi::Object& object, const char* key, const std::string& what) {
  Napi::Value value = object.Get(key);
  if (IsNullish(value)) return 0.0f;
  if (!value.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", what + "." + key + " must be a number", true);
  return static_cast<float>(value.As<Napi::Number>().DoubleValue());
}

bool ReadElementType(Napi::Env env, const Napi::Object& object, const char* key, const std::string& context) {
  const std::string type = ReadString(env, object, key, context, "float32");
  if (type != "float32" && type != "bool") {
    ThrowJs(env, "INVALID_ARGUMENT", context + ": options." + key + " must be 'float32' or 'bool', got '" + type + "'", true);
  }
  return type == "bool";
}

ProgramSpec ReadProgram(Napi::Env env, const Napi::Object& options, const std::string& ctx) {
  ProgramSpec spec;
  const Napi::Array inputs = ExpectArray(env, options.Get("inputs"), ctx + ": options.inputs");
  for (uint32_t i = 0; i < inputs.Length(); ++i) {
    const std::string what = ctx + ": inputs[" + std::to_string(i) + "]";
    const Napi::Object input = ExpectObject(env, inputs.Get(i), what);
    spec.inputDims.push_back(ReadDims(env, input, "dims", what, true));
    spec.inputIsBool.push_back(ReadElementType(env, input, "type", what));
  }
  const Napi::Array program = ExpectArray(env, options.Get("program"), ctx + ": options.program");
  for (uint32_t k = 0; k < program.Length(); ++k) {
    const std::string what = ctx + ": program[" + std::to_string(k) + "]";
    const Napi::Object entry = ExpectObject(env, program.Get(k), what);
    const std::string name = ReadString(env, entry, "op", what, "");
    Instruction ins;
    if (!eltwise::ParseOp(name, &ins.op)) ThrowJs(env, "INVALID_ARGUMENT", what + ": unknown op '" + name + "'", true);
    const auto args = ReadDims(env, entry, "args", what, false);
    const int arity = eltwise::OpArity(ins.op);
    if (static_cast<int>(args.size()) != arity) {
      ThrowJs(env, "INVALID_ARGUMENT", what + ": " + name + " takes " + std::to_string(arity) + " argument(s), got " + std::to_string(args.size()), true);
    }
    for (int j = 0; j < arity; ++j) {
      if (args[j] > kMaxArrayLength * 2) ThrowJs(env, "INVALID_ARGUMENT", what + ": argument " + std::to_string(j) + " is out of range", true);
      ins.args[j] = static_cast<int32_t>(args[j]);
    }
    ins.alpha = ReadFloat(env, entry, ins.op == Op::kConst ? "value" : "alpha", what);
    ins.beta = ReadFloat(env, entry, "beta", what);
    spec.instructions.push_back(ins);
  }
  spec.outputIsBool = ReadElementType(env, options, "outputType", ctx);
  spec.threads = ThreadsOption(env, options, ctx);
  spec.isa = eltwise::ResolveIsa(ReadString(env, options, "isa", ctx, "auto"), ctx);
  return spec;
}

// A Float32Array (float) or Uint8Array (bool) of exactly `elements`; its memory. `describe()` names the
// argument, called only on failure: a good run builds no message strings.
template <typename Describe>
void* ExpectBuffer(Napi::Env env, const Napi::Value& value, bool isBool, int64_t elements, Describe&& describe) {
  const napi_typedarray_type wanted = isBool ? napi_uint8_array : napi_float32_array;
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != wanted) {
    ThrowJs(env, "INVALID_ARGUMENT", describe() + " must be " + (isBool ? "a Uint8Array (bool)" : "a Float32Array"), true);
  }
  auto typed = value.As<Napi::TypedArray>();
  if (static_cast<int64_t>(typed.ElementLength()) != elements) {
    ThrowJs(env, "INVALID_ARGUMENT",
            describe() + " must have " + std::to_string(elements) + " elements, got " + std::to_string(typed.ElementLength()), true);
  }
  auto* base = static_cast<uint8_t*>(typed.ArrayBuffer().Data());
  return base + typed.ByteOffset();
}

// One run as plain data (promise_worker.h's Baton).
struct ElementwiseBaton {
  std::shared_ptr<const ElementwiseKernel> kernel;
  std::vector<const void*> inputs;
  void* output;

  void Run() const { kernel->Execute(inputs.data(), output); }
  const char* Context() const { return "ElementwisePrimitive.run"; }
};

// Checks run(inputs, output)'s arguments; `keepAlive` receives the JS buffers.
ElementwiseBaton ReadRunArgs(const Napi::CallbackInfo& info, std::shared_ptr<const ElementwiseKernel> kernel, const char* method,
                             std::vector<Napi::Value>* keepAlive) {
  Napi::Env env = info.Env();
  ElementwiseBaton baton{std::move(kernel), {}, nullptr};
  const ElementwiseKernel& k = *baton.kernel;
  if (!info[0].IsArray()) ThrowJs(env, "INVALID_ARGUMENT", std::string(method) + ": inputs must be an array", true);
  const auto inputs = info[0].As<Napi::Array>();
  if (inputs.Length() != k.inputCount()) {
    ThrowJs(env, "INVALID_ARGUMENT",
            std::string(method) + ": expected " + std::to_string(k.inputCount()) + " inputs, got " + std::to_string(inputs.Length()), true);
  }
  baton.inputs.reserve(k.inputCount());
  for (uint32_t i = 0; i < inputs.Length(); ++i) {
    const Napi::Value value = inputs.Get(i);
    baton.inputs.push_back(ExpectBuffer(env, value, k.inputIsBool(i), k.inputElements(i), [&] { return std::string(method) + ": inputs[" + std::to_string(i) + "]"; }));
    if (keepAlive) keepAlive->push_back(value);
  }
  baton.output = ExpectBuffer(env, info[1], k.outputIsBool(), k.outputElements(), [&] { return std::string(method) + ": output"; });
  if (keepAlive) keepAlive->push_back(info[1]);
  return baton;
}

}  // namespace

Napi::Function ElementwisePrimitive::Define(Napi::Env env) {
  return DefineClass(env, kClass,
                     {
                         InstanceMethod("run", &ElementwisePrimitive::Run),
                         InstanceMethod("runSync", &ElementwisePrimitive::RunSync),
                         InstanceMethod("dispose", &ElementwisePrimitive::Dispose),
                         InstanceAccessor("outputDims", &ElementwisePrimitive::OutputDims, nullptr),
                         InstanceAccessor("implementation", &ElementwisePrimitive::Implementation, nullptr),
                         InstanceAccessor("threads", &ElementwisePrimitive::Threads, nullptr),
                     });
}

ElementwisePrimitive::ElementwisePrimitive(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ElementwisePrimitive>(info) {
  Napi::Env env = info.Env();
  TagInstance(env, info.This(), ClassTag(kClass));
  const std::string ctx = "new ElementwisePrimitive";
  const Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  kernel_ = GuardSync(env, ctx, [&] { return std::make_shared<const ElementwiseKernel>(ReadProgram(env, options, ctx), ctx); });
}

ElementwisePrimitive* ElementwisePrimitive::Unwrap(const Napi::Object& wrapper) { return UnwrapTagged<ElementwisePrimitive>(wrapper); }

const ElementwiseKernel& ElementwisePrimitive::Kernel(Napi::Env env, const char* method) const {
  if (!kernel_) ThrowJs(env, "RELEASED", std::string(kClass) + "." + method + ": the primitive was disposed");
  return *kernel_;
}

Napi::Value ElementwisePrimitive::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "run");
  std::vector<Napi::Value> keepAlive{info.This()};
  ElementwiseBaton baton = ReadRunArgs(info, kernel_, "ElementwisePrimitive.run", &keepAlive);
  return PromiseWorker<ElementwiseBaton>::Queue(env, std::move(baton), keepAlive);
}

Napi::Value ElementwisePrimitive::RunSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Kernel(env, "runSync");
  const ElementwiseBaton baton = ReadRunArgs(info, kernel_, "ElementwisePrimitive.runSync", nullptr);
  GuardSync(env, "ElementwisePrimitive.runSync", [&] { baton.Run(); });
  return env.Undefined();
}

Napi::Value ElementwisePrimitive::Dispose(const Napi::CallbackInfo& info) {
  kernel_.reset();  // in-flight runs hold their own share
  return info.Env().Undefined();
}

Napi::Value ElementwisePrimitive::OutputDims(const Napi::CallbackInfo& info) {
  return DimsToJs(info.Env(), Kernel(info.Env(), "outputDims").outputDims());
}

Napi::Value ElementwisePrimitive::Implementation(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), Kernel(info.Env(), "implementation").implementation());
}

Napi::Value ElementwisePrimitive::Threads(const Napi::CallbackInfo& info) {
  const int threads = Kernel(info.Env(), "threads").threads();
  return Napi::Number::New(info.Env(), threads > 0 ? threads : DefaultThreads());
}

Napi::Value ElementwiseOpsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto names = Napi::Array::New(env, eltwise::kOpCount);
  for (int i = 0; i < eltwise::kOpCount; ++i) names.Set(static_cast<uint32_t>(i), Napi::String::New(env, eltwise::OpName(static_cast<Op>(i))));
  return names;
}

}  // namespace switchyard
