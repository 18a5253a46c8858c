#include "int8_matmul_primitive.h"

#include <array>
#include <string>

#include <switchyard/errors.h>
#include "int8_options.h"
#include <switchyard/js_args.h>
#include "thread_count.h"

namespace switchyard {

namespace {

struct MatMulOptions {
  Int8MatMulShape shape;
  Int8MatMulParams params;
  WeightsOption weights;
};

// `readInput`: whether the class reads inputType / aZeroPointCount (the dynamic one quantizes A itself).
MatMulOptions ReadMatMulOptions(Napi::Env env, const Napi::Value& arg, const std::string& ctx, bool readInput) {
  Napi::Object options = ExpectObject(env, arg, ctx + ": argument 1");
  MatMulOptions o;
  o.shape.a = ReadDims(env, options, "aDims", ctx, true);
  const Dims b = ReadDims(env, options, "bDims", ctx, true);
  if (b.size() != 2) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": options.bDims must be [K, N], got " + DimsToString(b), true);
  const bool aSigned = readInput && ReadQuantType(env, options, "inputType", ctx, QuantType::kUint8) == QuantType::kInt8;
  if (readInput) o.shape.aZeroPointCount = ReadInt(env, options, "aZeroPointCount", ctx, 1);
  const WeightSplit split = ReadWeightSplit(env, options, ctx);
  const int threads = ThreadsOption(env, options, ctx);
  const int64_t bElements = GuardSync(env, ctx, [&] { return ElementCount(b, "B"); });
  o.weights = ReadWeightsOption(env, options, bElements, b[1], ctx);
  o.params = GuardSync(env, ctx, [&] { return MatMulParamsFor(o.shape, b, aSigned, o.weights.isSigned(), split, threads); });
  return o;
}

ElementType InputType(const Int8MatMulParams& p) { return p.aSigned ? ElementType::kInt8 : ElementType::kUint8; }

// a, its zero points (aZeroPointCount elements) and the output as every class but the dynamic one reads them.
TypedView ReadA(const Napi::CallbackInfo& info, const Int8MatMulShape& shape, const Int8MatMulParams& p, const char* method) {
  return ExpectTypedArrayLazy(info.Env(), info[0], Allow(InputType(p)), p.rows * p.inner, [&] { return std::string(method) + ": a (A " + DimsToString(shape.a) + ")"; });
}

TypedView ReadAZero(const Napi::CallbackInfo& info, const Int8MatMulShape& shape, const Int8MatMulParams& p, const char* method) {
  return OptionalTypedArrayLazy(info.Env(), info[1], Allow(InputType(p)), shape.aZeroPointCount, [&] { return std::string(method) + ": aZero (aZeroPointCount elements)"; });
}

std::array<TypedView, 3> ReadMatMulIntegerArgs(const Napi::CallbackInfo& info, const MatMulIntegerKernel& kernel, const char* method) {
  const Int8MatMulParams& p = kernel.params();
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(info.Env(), info[2], Allow(ElementType::kInt32), p.rows * p.columns, [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {ReadA(info, kernel.shape(), p, method), ReadAZero(info, kernel.shape(), p, method), y};
}

std::array<TypedView, 6> ReadQLinearMatMulArgs(const Napi::CallbackInfo& info, const QLinearMatMulKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Int8MatMulParams& p = kernel.params();
  const TypedView a = ReadA(info, kernel.shape(), p, method), aZero = ReadAZero(info, kernel.shape(), p, method);
  const TypedView bias = OptionalTypedArrayLazy(env, info[2], Allow(ElementType::kInt32), p.columns, [&] { return std::string(method) + ": bias (one int32 per column)"; });
  const TypedView mult = ExpectTypedArrayLazy(env, info[3], Allow(ElementType::kFloat32), p.columns, [&] { return std::string(method) + ": multipliers (one per column)"; });
  const ElementType outType = ElementTypeOf(kernel.outputType());
  const TypedView yZero = ReadZeroPointArg(info, 4, outType, method, "yZero");
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(env, info[5], Allow(outType), p.rows * p.columns, [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {a, aZero, bias, mult, yZero, y};
}

std::array<TypedView, 4> ReadDynamicMatMulArgs(const Napi::CallbackInfo& info, const DynamicQuantizedMatMulKernel& kernel, const char* method) {
  Napi::Env env = info.Env();
  const Int8MatMulParams& p = kernel.params();
  const auto floats = Allow(ElementType::kFloat32);
  const TypedView a = ExpectTypedArrayLazy(env, info[0], floats, p.rows * p.inner, [&] { return std::string(method) + ": a (A, float32)"; });
  const TypedView scales = ExpectTypedArrayLazy(env, info[1], floats, p.columns, [&] { return std::string(method) + ": scales (one per column)"; });
  TypedView bias;
  if (kernel.hasBias()) bias = ExpectTypedArrayLazy(env, info[2], floats, p.columns, [&] { return std::string(method) + ": bias (one per column)"; });
  else ExpectNullArg(info, 2, method, "bias", "built without hasBias");
  const Dims& out = kernel.outputDims();
  const TypedView y = ExpectTypedArrayLazy(env, info[3], floats, p.rows * p.columns, [&] { return std::string(method) + ": y (output " + DimsToString(out) + ")"; });
  return {a, scales, bias, y};
}

int64_t ZeroPointCount(const WeightsOption& w) { return static_cast<int64_t>(w.zeroPoints.length); }

}  // namespace

Napi::Function MatMulIntegerPrimitive::Define(Napi::Env env) { return DefineKernelClass<KernelGetters::kAll, ReadMatMulIntegerArgs>(env); }

MatMulIntegerPrimitive::MatMulIntegerPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  const std::string ctx = "new MatMulIntegerPrimitive";
  const MatMulOptions o = ReadMatMulOptions(info.Env(), info[0], ctx, true);
  kernel_ = GuardSync(info.Env(), ctx, [&] {
    return std::make_shared<const MatMulIntegerKernel>(o.shape, o.params, o.weights.weights.data, o.weights.zeroPoints.data, ZeroPointCount(o.weights));
  });
}

Napi::Function QLinearMatMulPrimitive::Define(Napi::Env env) { return DefineKernelClass<KernelGetters::kAll, ReadQLinearMatMulArgs>(env); }

QLinearMatMulPrimitive::QLinearMatMulPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new QLinearMatMulPrimitive";
  const MatMulOptions o = ReadMatMulOptions(env, info[0], ctx, true);
  Napi::Object options = info[0].As<Napi::Object>();
  const QuantType output = ReadQuantType(env, options, "outputType", ctx, QuantType::kUint8);
  const bool relu = ReadBool(env, options, "relu", ctx, false);
  kernel_ = GuardSync(env, ctx, [&] {
    return std::make_shared<const QLinearMatMulKernel>(o.shape, o.params, o.weights.weights.data, o.weights.zeroPoints.data, ZeroPointCount(o.weights), output, relu);
  });
}

Napi::Function DynamicQuantizedMatMulPrimitive::Define(Napi::Env env) { return DefineKernelClass<KernelGetters::kAll, ReadDynamicMatMulArgs>(env); }

DynamicQuantizedMatMulPrimitive::DynamicQuantizedMatMulPrimitive(const Napi::CallbackInfo& info) : KernelWrap(info) {
  Napi::Env env = info.Env();
  const std::string ctx = "new DynamicQuantizedMatMulPrimitive";
  const MatMulOptions o = ReadMatMulOptions(env, info[0], ctx, false);
  const bool hasBias = ReadBool(env, info[0].As<Napi::Object>(), "hasBias", ctx, false);
  const bool relu = ReadBool(env, info[0].As<Napi::Object>(), "relu", ctx, false);
  kernel_ = GuardSync(env, ctx, [&] {
    return std::make_shared<const DynamicQuantizedMatMulKernel>(o.shape, o.params, o.weights.weights.data, o.weights.zeroPoints.data, ZeroPointCount(o.weights), hasBias, relu);
  });
}

}  // namespace switchyard
