#include "int8_conv_primitive.h"

#include <array>
#include <string>

#include <switchyard/errors.h>
#include "int8_options.h"
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

// The geometry and weights every int8 conv class takes; `params.inputSigned` from options.inputType
// where the class reads one.
struct ConvOptions {
  Int8ConvParams params;
  WeightsOption weights;
};

ConvOptions ReadConvOptions(Napi::Env env, const Napi::Value& arg, const std::string& ctx, bool readInputType) {
  Napi::Object options = ExpectObject(env, arg, ctx + ": argument 1");
  ConvOptions o;
  Int8ConvParams& p = o.params;
  p.input = ReadDims(env, options, "inputDims", ctx, true);
  p.weights = ReadDims(env, options, "weightDims", ctx, true);
  p.group = ReadInt(env, options, "group", ctx, 1);
  p.strides = ReadDims(env, options, "strides", ctx, false);
  p.dilations = ReadDims(env, options, "dilations", ctx, false);
  p.padsBegin = ReadDims(env, options, "padsBegin", ctx, false);
  p.padsEnd = ReadDims(env, options, "padsEnd", ctx, false);
  p.threads = ThreadsOption(env, options, ctx);
  p.split = ReadWeightSplit(env, options, ctx);
  if (readInputType) p.inputSigned = ReadQuantType(env, options, "inputType", ctx, QuantType::kUint8) == QuantType::kInt8;
  GuardSync(env, ctx, [&] { Int8ConvOutputDims(p); });
  o.weights = ReadWeightsOption(env, options, ElementCount(p.weights, "weights"), p.weights[0], ctx);
  p.weightsSigned = o.weights.isSigned();
  return o;
}

ElementType InputType(const Int8ConvParams& p) { return p.inputSigned ? ElementType::kInt8 : ElementType::kUint8; }

int64_t InputElements(const Int8ConvParams& p) { return ElementCount(p.input, "input"); }

// run(x, xZero | null, y).
std::array<TypedView, 3> ReadConvIntegerArgs(const Napi::CallbackInfo& info, const ConvIntegerKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Int8ConvParams& p = kernel.params();
  const TypedView x = ExpectTypedArrayLazy(env, info[0], Allow(InputType(p)), InputElements(p), [&] { return std::string(method) + ": x (input " + DimsToString(p.input) + ")"; });
  const TypedView xZero = ReadZeroPointArg(info, 1, InputType(p), method, "xZero");
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(env, info[2], Allow(ElementType::kInt32), ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {x, xZero, y};
}

// run(x, xZero | null, bias | null, multipliers, yZero | null, y).
std::array<TypedView, 6> ReadQLinearConvArgs(const Napi::CallbackInfo& info, const QLinearConvKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Int8ConvParams& p = kernel.params();
  const int64_t m = p.weights[0];
  const TypedView x = ExpectTypedArrayLazy(env, info[0], Allow(InputType(p)), InputElements(p), [&] { return std::string(method) + ": x (input " + DimsToString(p.input) + ")"; });
  const TypedView xZero = ReadZeroPointArg(info, 1, InputType(p), method, "xZero");
  const TypedView bias = OptionalTypedArrayLazy(env, info[2], Allow(ElementType::kInt32), m, [&] { return std::string(method) + ": bias (one int32 per output channel)"; });
  const TypedView mult = ExpectTypedArrayLazy(env, info[3], Allow(ElementType::kFloat32), m, [&] { return std::string(method) + ": multipliers (one per output channel)"; });
  const ElementType outType = ElementTypeOf(kernel.outputType());
  const TypedView yZero = ReadZeroPointArg(info, 4, outType, method, "yZero");
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(env, info[5], Allow(outType), ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {x, xZero, bias, mult, yZero, y};
}

// run(x, scales, bias | null, y).
std::array<TypedView, 4> ReadDynamicConvArgs(const Napi::CallbackInfo& info, const DynamicQuantizedConvKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Int8ConvParams& p = kernel.params();
  const int64_t m = p.weights[0];
  const auto floats = Allow(ElementType::kFloat32);
  const TypedView x = ExpectTypedArrayLazy(env, info[0], floats, InputElements(p), [&] { return std::string(method) + ": x (input " + DimsToString(p.input) + ")"; });
  const TypedView scales = ExpectTypedArrayLazy(env, info[1], floats, m, [&] { return std::string(method) + ": scales (one per output channel)"; });
  TypedView bias;
  if (kernel.hasBias()) bias = ExpectTypedArrayLazy(env, info[2], floats, m, [&] { return std::string(method) + ": bias (one per output channel)"; });
  else ExpectNullArg(info, 2, method, "bias", "built without hasBias");
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(env, info[3], floats, ElementCount(out, "output"), [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {x, scales, bias, y};
}

}  // namespace

Napi::Function ConvIntegerPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadConvIntegerArgs>(env);
}

ConvIntegerPrimitive::ConvIntegerPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  const std::string ctx = "new ConvIntegerPrimitive";
  const ConvOptions o = ReadConvOptions(info.Env(), info[0], ctx, true);
  kernel_ = GuardSync(info.Env(), ctx, [&] {
    return std::make_shared<const ConvIntegerKernel>(o.params, o.weights.weights.data, o.weights.zeroPoints.data, static_cast<int64_t>(o.weights.zeroPoints.length));
  });
}

Napi::Function QLinearConvPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadQLinearConvArgs>(env);
}

QLinearConvPrimitive::QLinearConvPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new QLinearConvPrimitive";
  const ConvOptions o = ReadConvOptions(env, info[0], ctx, true);
  Napi::Object options = info[0].As<Napi::Object>();
  const QuantType output = ReadQuantType(env, options, "outputType", ctx, QuantType::kUint8);
  const bool relu = ReadBool(env, options, "relu", ctx, false);
  kernel_ = GuardSync(env, ctx, [&] {
    return std::make_shared<const QLinearConvKernel>(o.params, o.weights.weights.data, o.weights.zeroPoints.data, static_cast<int64_t>(o.weights.zeroPoints.length), output, relu);
  });
}

Napi::Function DynamicQuantizedConvPrimitive::Define(Napi::Env env) {
  return DefineKernelClass<KernelGetters::kAll, ReadDynamicConvArgs>(env);
}

DynamicQuantizedConvPrimitive::DynamicQuantizedConvPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new DynamicQuantizedConvPrimitive";
  const ConvOptions o = ReadConvOptions(env, info[0], ctx, false);
  const bool hasBias = ReadBool(env, info[0].As<Napi::Object>(), "hasBias", ctx, false);
  const bool relu = ReadBool(env, info[0].As<Napi::Object>(), "relu", ctx, false);
  kernel_ = GuardSync(env, ctx, [&] {
    return std::make_shared<const DynamicQuantizedConvKernel>(o.params, o.weights.weights.data, o.weights.zeroPoints.data, static_cast<int64_t>(o.weights.zeroPoints.length), hasBias, relu);
  });
}

}  // namespace switchyard
