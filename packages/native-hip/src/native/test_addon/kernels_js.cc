// kernelsJs: a test entry into the kernel library (kernels/launch.h), so every launcher can be
// checked against a JavaScript reference on a GPU host (gpu-tests/kernels-*.mjs). Not a production
// path: it allocates, uploads, launches, waits and downloads per call, and lives only in the test
// addon, switchyard_hip_test.node (test_addon/main.cc).
//
// [sync] kernelsJs.run(name, spec) -> { outputs: (TypedArray | null)[], ms }
//   spec.inputs:  ({ data: TypedArray, dims: number[], dtype: string } | null)[]
//   spec.outputs: ({ dims: number[], dtype: string } | null)[]   (null = an optional output not asked for)
//   spec.attrs:   kernel parameters (below); spec.device: device index (default 0)
//   dtype names are core's: float32 float16 int32 int64 bool int8 uint8 (float16 data is Uint16Array bits).
//   `ms` is host wall time of launch + synchronize (a rough figure, not a benchmark).
// Names: binary{op} where unary{op,alpha,beta} cast reduce{op,axisBegin,axisEnd} softmax{log}
//   layerNorm{epsilon} gather{axis} concat{axis} slice{starts,steps} transpose{perm} expand
//   pad{padsBegin,mode,value} biasActivation{axis,activation,alpha,beta,residualBeforeActivation}.
// Every shape and size is checked before any device call, so a bad spec is a TypeError/RangeError
// and never an out-of-bounds kernel.
#include <napi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu_errors.h"
#include "kernels/launch.h"

namespace switchyard {
namespace {

using kernels::DType;
using kernels::TensorShape;

struct HostTensor {
  bool present = false;
  DType dtype = DType::kFloat32;
  TensorShape shape;
  const void* data = nullptr;
  size_t bytes = 0;
};

struct OutputSpec {
  bool present = false;
  DType dtype = DType::kFloat32;
  TensorShape shape;
};

// Owns device memory for one call; freed on every exit path.
struct DeviceAllocation {
  DeviceAllocation() = default;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  void* ptr = nullptr;
  ~DeviceAllocation() {
    if (ptr != nullptr) (void)hipFree(ptr);
  }
};

class SpecError {
 public:
  SpecError(Napi::Env env, std::string kernel) : env_(env), prefix_("kernelsJs.run('" + kernel + "'): ") {}
  [[noreturn]] void Type(const std::string& message) const { ThrowJs(env_, "INVALID_ARGUMENT", prefix_ + message, true); }
  [[noreturn]] void Range(const std::string& message) const { ThrowJsRange(env_, "INVALID_ARGUMENT", prefix_ + message); }

 private:
  Napi::Env env_;
  std::string prefix_;
};

bool ParseDType(const std::string& name, DType* out) {
  static const std::map<std::string, DType> names = {
      {"float32", DType::kFloat32}, {"float16", DType::kFloat16}, {"int32", DType::kInt32}, {"int64", DType::kInt64},
      {"bool", DType::kBool},       {"int8", DType::kInt8},       {"uint8", DType::kUint8}};
  auto it = names.find(name);
  if (it == names.end()) return false;
  *out = it->second;
  return true;
}

int64_t ToInt(const SpecError& err, const Napi::Value& v, const std::string& what) {
  if (!v.IsNumber()) err.Type(what + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0) err.Range(what + " must be an integer");
  return static_cast<int64_t>(d);
}

std::vector<int64_t> ToIntArray(const SpecError& err, const Napi::Value& v, const std::string& what) {
  if (!v.IsArray()) err.Type(what + " must be an array of integers");
  Napi::Array array = v.As<Napi::Array>();
  std::vector<int64_t> out;
  for (uint32_t i = 0; i < array.Length(); ++i) out.push_back(ToInt(err, array.Get(i), what + "[" + std::to_string(i) + "]"));
  return out;
}

TensorShape ToShape(const SpecError& err, const Napi::Value& v, const std::string& what) {
  const std::vector<int64_t> dims = ToIntArray(err, v, what);
  if (dims.size() > static_cast<size_t>(kernels::kMaxRank)) err.Range(what + ": rank above " + std::to_string(kernels::kMaxRank));
  TensorShape shape;
  shape.rank = static_cast<int>(dims.size());
  // Zero dims count as 1 here: kernels multiply dims in int64 before a zero may come, so every partial
  // product must stay small, not only the element count.
  double count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) err.Range(what + ": negative dimension");
    shape.dims[i] = dims[i];
    count *= std::max(1.0, static_cast<double>(dims[i]));
  }
  if (count > 4294967296.0) err.Range(what + ": more than 2^32 elements");
  return shape;
}

DType ToDType(const SpecError& err, const Napi::Value& v, const std::string& what) {
  DType dtype;
  if (!v.IsString() || !ParseDType(v.As<Napi::String>().Utf8Value(), &dtype)) {
    err.Type(what + " must be one of float32 float16 int32 int64 bool int8 uint8");
  }
  return dtype;
}

class Attrs {
 public:
  Attrs(const SpecError& err, Napi::Object object) : err_(err), object_(object) {}
  bool Has(const char* key) const { return object_.Has(key) && !object_.Get(key).IsUndefined(); }
  int64_t Int(const char* key, int64_t fallback) const {
    return Has(key) ? ToInt(err_, object_.Get(key), std::string("attrs.") + key) : fallback;
  }
  int64_t Int(const char* key) const {
    if (!Has(key)) err_.Type(std::string("attrs.") + key + " is required");
    return ToInt(err_, object_.Get(key), std::string("attrs.") + key);
  }
  double Number(const char* key, double fallback) const {
    if (!Has(key)) return fallback;
    Napi::Value v = object_.Get(key);
    if (!v.IsNumber()) err_.Type(std::string("attrs.") + key + " must be a number");
    return v.As<Napi::Number>().DoubleValue();
  }
  bool Bool(const char* key) const { return Has(key) && object_.Get(key).ToBoolean().Value(); }
  std::string String(const char* key) const {
    if (!Has(key) || !object_.Get(key).IsString()) err_.Type(std::string("attrs.") + key + " must be a string");
    return object_.Get(key).As<Napi::String>().Utf8Value();
  }
  std::vector<int64_t> Ints(const char* key) const {
    if (!Has(key)) err_.Type(std::string("attrs.") + key + " is required");
    return ToIntArray(err_, object_.Get(key), std::string("attrs.") + key);
  }

 private:
  const SpecError& err_;
  Napi::Object object_;
};

// The call's inputs, outputs and attributes, parsed and checked against each other.
struct Call {
  std::vector<HostTensor> inputs;
  std::vector<OutputSpec> outputs;
};

bool SameShape(const TensorShape& a, const TensorShape& b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i) if (a.dims[i] != b.dims[i]) return false;
  return true;
}

std::string ShapeText(const TensorShape& s) {
  std::string text = "[";
  for (int i = 0; i < s.rank; ++i) text += (i ? "," : "") + std::to_string(s.dims[i]);
  return text + "]";
}

// Numbers of a UnaryOp / BinaryOp / ReduceOp by name.
template <typename E>
E ParseName(const SpecError& err, const std::string& name, const std::map<std::string, E>& names, const char* what) {
  auto it = names.find(name);
  if (it == names.end()) err.Type(std::string("unknown ") + what + " '" + name + "'");
  return it->second;
}

const std::map<std::string, kernels::UnaryOp>& UnaryNames() {
  using kernels::UnaryOp;
  static const std::map<std::string, UnaryOp> names = {
      {"Identity", UnaryOp::kIdentity}, {"Relu", UnaryOp::kRelu}, {"LeakyRelu", UnaryOp::kLeakyRelu},
      {"Sigmoid", UnaryOp::kSigmoid}, {"Tanh", UnaryOp::kTanh}, {"GeluErf", UnaryOp::kGeluErf},
      {"GeluTanh", UnaryOp::kGeluTanh}, {"HardSigmoid", UnaryOp::kHardSigmoid}, {"HardSwish", UnaryOp::kHardSwish},
      {"Clip", UnaryOp::kClip}, {"Erf", UnaryOp::kErf}, {"Exp", UnaryOp::kExp}, {"Log", UnaryOp::kLog},
      {"Sqrt", UnaryOp::kSqrt}, {"Neg", UnaryOp::kNeg}, {"Abs", UnaryOp::kAbs}, {"Reciprocal", UnaryOp::kReciprocal},
      {"Swish", UnaryOp::kSwish}, {"Elu", UnaryOp::kElu}, {"Softplus", UnaryOp::kSoftplus}, {"Mish", UnaryOp::kMish},
      {"Selu", UnaryOp::kSelu}, {"Softsign", UnaryOp::kSoftsign}};
  return names;
}

kernels::UnaryParams ParamsOf(const Attrs& attrs) {
  kernels::UnaryParams p;
  p.alpha = static_cast<float>(attrs.Number("alpha", 0.0));
  p.beta = static_cast<float>(attrs.Number("beta", 0.0));
  return p;
}

bool IsFloat(DType d) { return d == DType::kFloat32 || d == DType::kFloat16; }

// The launch for one kernel name: checks the call and returns a closure over device pointers.
using Launch = std::function<hipError_t(const std::vector<void*>& in, const std::vector<void*>& out)>;

void Expect(const SpecError& err, bool condition, const std::string& message) {
  if (!condition) err.Range(message);
}

void ExpectCounts(const SpecError& err, const Call& call, size_t inputs, size_t outputs) {
  Expect(err, call.inputs.size() == inputs, "expects " + std::to_string(inputs) + " inputs");
  Expect(err, call.outputs.size() >= 1 && call.outputs.size() <= outputs && call.outputs[0].present,
         "expects up to " + std::to_string(outputs) + " outputs, the first present");
}

const HostTensor& Required(const SpecError& err, const Call& call, size_t i) {
  if (!call.inputs[i].present) err.Type("input " + std::to_string(i) + " is required");
  return call.inputs[i];
}

void ExpectOutput(const SpecError& err, const OutputSpec& out, DType dtype, const TensorShape& shape) {
  Expect(err, out.dtype == dtype, "output dtype does not match the kernel's");
  Expect(err, SameShape(out.shape, shape), "output dims must be " + ShapeText(shape) + ", got " + ShapeText(out.shape));
}

// [outer, axis, inner] of `shape` around `axis` (already normalized).
void SplitAt(const TensorShape& shape, int axis, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int i = 0; i < axis; ++i) *outer *= shape.dims[i];
  for (int i = axis + 1; i < shape.rank; ++i) *inner *= shape.dims[i];
}

int NormalizeAxis(const SpecError& err, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) err.Range("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Launch Plan(const SpecError& err, const std::string& name, const Call& call, const Attrs& attrs) {
  using namespace kernels;
  if (name == "binary") {
    ExpectCounts(err, call, 2, 1);
    static const std::map<std::string, BinaryOp> names = {
        {"Add", BinaryOp::kAdd}, {"Sub", BinaryOp::kSub}, {"Mul", BinaryOp::kMul}, {"Div", BinaryOp::kDiv},
        {"Pow", BinaryOp::kPow}, {"Max", BinaryOp::kMax}, {"Min", BinaryOp::kMin}, {"Equal", BinaryOp::kEqual},
        {"Less", BinaryOp::kLess}, {"Greater", BinaryOp::kGreater}, {"LessOrEqual", BinaryOp::kLessOrEqual},
        {"GreaterOrEqual", BinaryOp::kGreaterOrEqual}, {"And", BinaryOp::kAnd}, {"Or", BinaryOp::kOr},
        {"Xor", BinaryOp::kXor}};
    const BinaryOp op = ParseName(err, attrs.String("op"), names, "binary op");
    const HostTensor& a = Required(err, call, 0);
    const HostTensor& b = Required(err, call, 1);
    Expect(err, IsFloat(a.dtype) && a.dtype == b.dtype, "operands must share a float dtype");
    TensorShape out;
    Expect(err, BroadcastShapes(a.shape, b.shape, &out), "operand shapes do not broadcast");
    ExpectOutput(err, call.outputs[0], op >= BinaryOp::kEqual ? DType::kBool : a.dtype, out);
    return [=](auto& in, auto& o) { return LaunchBinary(op, a.dtype, in[0], a.shape, in[1], b.shape, o[0], out, nullptr); };
  }
  if (name == "where") {
    ExpectCounts(err, call, 3, 1);
    const HostTensor& c = Required(err, call, 0);
    const HostTensor& x = Required(err, call, 1);
    const HostTensor& y = Required(err, call, 2);
    Expect(err, c.dtype == DType::kBool && x.dtype == y.dtype, "cond must be bool, x and y one dtype");
    TensorShape xy, out;
    Expect(err, BroadcastShapes(x.shape, y.shape, &xy) && BroadcastShapes(c.shape, xy, &out), "shapes do not broadcast");
    ExpectOutput(err, call.outputs[0], x.dtype, out);
    return [=](auto& in, auto& o) {
      return LaunchWhere(x.dtype, static_cast<const uint8_t*>(in[0]), c.shape, in[1], x.shape, in[2], y.shape, o[0], out, nullptr);
    };
  }
  if (name == "unary") {
    ExpectCounts(err, call, 1, 1);
    const UnaryOp op = ParseName(err, attrs.String("op"), UnaryNames(), "unary op");
    const HostTensor& x = Required(err, call, 0);
    Expect(err, IsFloat(x.dtype), "x must be float32 or float16");
    ExpectOutput(err, call.outputs[0], x.dtype, x.shape);
    const UnaryParams params = ParamsOf(attrs);
    const int64_t count = x.shape.ElementCount();
    return [=](auto& in, auto& o) { return LaunchUnary(op, x.dtype, in[0], o[0], count, params, nullptr); };
  }
  if (name == "cast") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    const DType to = call.outputs[0].dtype;
    ExpectOutput(err, call.outputs[0], to, x.shape);
    const int64_t count = x.shape.ElementCount();
    return [=](auto& in, auto& o) { return LaunchCast(x.dtype, to, in[0], o[0], count, nullptr); };
  }
  if (name == "reduce") {
    ExpectCounts(err, call, 1, 1);
    static const std::map<std::string, ReduceOp> names = {
        {"Sum", ReduceOp::kSum}, {"Mean", ReduceOp::kMean}, {"Max", ReduceOp::kMax}, {"Min", ReduceOp::kMin},
        {"SumSquare", ReduceOp::kSumSquare}, {"L1", ReduceOp::kL1}, {"L2", ReduceOp::kL2},
        {"LogSumExp", ReduceOp::kLogSumExp}};
    const ReduceOp op = ParseName(err, attrs.String("op"), names, "reduce op");
    const HostTensor& x = Required(err, call, 0);
    Expect(err, IsFloat(x.dtype), "x must be float32 or float16");
    const int64_t begin = attrs.Int("axisBegin"), end = attrs.Int("axisEnd");
    Expect(err, 0 <= begin && begin <= end && end <= x.shape.rank, "need 0 <= axisBegin <= axisEnd <= rank");
    int64_t outer = 1, reduce = 1, inner = 1;
    for (int i = 0; i < x.shape.rank; ++i) (i < begin ? outer : i < end ? reduce : inner) *= x.shape.dims[i];
    Expect(err, call.outputs[0].dtype == x.dtype && call.outputs[0].shape.ElementCount() == outer * inner,
           "output must hold outer*inner elements of x's dtype");
    return [=](auto& in, auto& o) { return LaunchReduce(op, x.dtype, in[0], outer, reduce, inner, o[0], nullptr); };
  }
  if (name == "softmax") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    Expect(err, IsFloat(x.dtype) && x.shape.rank >= 1, "x must be float32/float16 of rank >= 1");
    ExpectOutput(err, call.outputs[0], x.dtype, x.shape);
    const int64_t cols = x.shape.dims[x.shape.rank - 1];
    const int64_t rows = cols == 0 ? 0 : x.shape.ElementCount() / cols;
    const bool log = attrs.Bool("log");
    return [=](auto& in, auto& o) { return LaunchSoftmax(x.dtype, in[0], o[0], rows, cols, log, nullptr); };
  }
  if (name == "layerNorm") {
    ExpectCounts(err, call, 4, 4);
    const HostTensor& x = Required(err, call, 0);
    const HostTensor& gamma = Required(err, call, 2);
    Expect(err, IsFloat(x.dtype) && x.shape.rank >= 1, "x must be float32/float16 of rank >= 1");
    const int64_t cols = x.shape.dims[x.shape.rank - 1];
    const int64_t rows = cols == 0 ? 0 : x.shape.ElementCount() / cols;
    TensorShape row_shape;
    row_shape.rank = 1;
    row_shape.dims[0] = cols;
    Expect(err, gamma.dtype == x.dtype && SameShape(gamma.shape, row_shape), "gamma must be [cols] of x's dtype");
    if (call.inputs[1].present) Expect(err, call.inputs[1].dtype == x.dtype && SameShape(call.inputs[1].shape, x.shape), "residual must match x");
    if (call.inputs[3].present) Expect(err, call.inputs[3].dtype == x.dtype && SameShape(call.inputs[3].shape, row_shape), "beta must be [cols] of x's dtype");
    ExpectOutput(err, call.outputs[0], x.dtype, x.shape);
    const bool has_sum = call.outputs.size() > 1 && call.outputs[1].present;
    const bool has_mean = call.outputs.size() > 2 && call.outputs[2].present;
    const bool has_inv = call.outputs.size() > 3 && call.outputs[3].present;
    if (has_sum) ExpectOutput(err, call.outputs[1], x.dtype, x.shape);
    if (has_mean) Expect(err, call.outputs[2].dtype == DType::kFloat32 && call.outputs[2].shape.ElementCount() == rows, "mean must be float32 with one value per row");
    if (has_inv) Expect(err, call.outputs[3].dtype == DType::kFloat32 && call.outputs[3].shape.ElementCount() == rows, "invStd must be float32 with one value per row");
    const float epsilon = static_cast<float>(attrs.Number("epsilon", 1e-5));
    return [=](auto& in, auto& o) {
      return LaunchLayerNorm(x.dtype, in[0], in[1], in[2], in[3], o[0], has_sum ? o[1] : nullptr,
                             has_mean ? static_cast<float*>(o[2]) : nullptr, has_inv ? static_cast<float*>(o[3]) : nullptr,
                             rows, cols, epsilon, nullptr);
    };
  }
  if (name == "gather") {
    ExpectCounts(err, call, 2, 1);
    const HostTensor& data = Required(err, call, 0);
    const HostTensor& indices = Required(err, call, 1);
    Expect(err, data.shape.rank >= 1, "data must have rank >= 1");
    Expect(err, indices.dtype == DType::kInt32 || indices.dtype == DType::kInt64, "indices must be int32 or int64");
    const int axis = NormalizeAxis(err, attrs.Int("axis", 0), data.shape.rank);
    Expect(err, data.shape.rank - 1 + indices.shape.rank <= kMaxRank, "output rank above 6");
    TensorShape out;
    for (int i = 0; i < axis; ++i) out.dims[out.rank++] = data.shape.dims[i];
    for (int i = 0; i < indices.shape.rank; ++i) out.dims[out.rank++] = indices.shape.dims[i];
    for (int i = axis + 1; i < data.shape.rank; ++i) out.dims[out.rank++] = data.shape.dims[i];
    ExpectOutput(err, call.outputs[0], data.dtype, out);
    int64_t outer, inner;
    SplitAt(data.shape, axis, &outer, &inner);
    const int64_t axis_dim = data.shape.dims[axis], count = indices.shape.ElementCount();
    return [=](auto& in, auto& o) {
      return LaunchGather(data.dtype, in[0], outer, axis_dim, inner, in[1], indices.dtype, count, o[0], nullptr);
    };
  }
  if (name == "concat") {
    Expect(err, !call.inputs.empty() && call.outputs.size() == 1 && call.outputs[0].present, "expects inputs and one output");
    const HostTensor& first = Required(err, call, 0);
    Expect(err, first.shape.rank >= 1, "inputs must have rank >= 1");
    const int axis = NormalizeAxis(err, attrs.Int("axis"), first.shape.rank);
    TensorShape out = first.shape;
    out.dims[axis] = 0;
    std::vector<int64_t> axis_dims;
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      const HostTensor& t = Required(err, call, i);
      TensorShape probe = t.shape;
      Expect(err, t.dtype == first.dtype && probe.rank == out.rank, "inputs must share dtype and rank");
      // Compare with the axis masked on both sides: out's own axis dim is the running total.
      TensorShape expected = out;
      probe.dims[axis] = 0;
      expected.dims[axis] = 0;
      Expect(err, SameShape(probe, expected), "inputs differ off the concat axis");
      out.dims[axis] += t.shape.dims[axis];
      axis_dims.push_back(t.shape.dims[axis]);
    }
    ExpectOutput(err, call.outputs[0], first.dtype, out);
    int64_t outer, inner;
    SplitAt(out, axis, &outer, &inner);
    const DType dtype = first.dtype;
    return [=](auto& in, auto& o) {
      std::vector<const void*> pointers(in.begin(), in.end());
      return LaunchConcat(dtype, pointers.data(), axis_dims.data(), static_cast<int>(pointers.size()), outer, inner, o[0], nullptr);
    };
  }
  if (name == "slice") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    const std::vector<int64_t> starts = attrs.Ints("starts"), steps = attrs.Ints("steps");
    Expect(err, starts.size() == static_cast<size_t>(x.shape.rank) && steps.size() == starts.size(), "starts/steps need one entry per dim");
    const OutputSpec& out = call.outputs[0];
    Expect(err, out.dtype == x.dtype && out.shape.rank == x.shape.rank, "output must match x's dtype and rank");
    for (int d = 0; d < x.shape.rank; ++d) {
      Expect(err, steps[d] != 0, "steps must be non-zero");
      if (out.shape.dims[d] == 0) continue;
      const int64_t last = starts[d] + (out.shape.dims[d] - 1) * steps[d];
      Expect(err, starts[d] >= 0 && starts[d] < x.shape.dims[d] && last >= 0 && last < x.shape.dims[d], "slice leaves dim " + std::to_string(d));
    }
    return [=](auto& in, auto& o) { return LaunchSlice(x.dtype, in[0], x.shape, starts.data(), steps.data(), o[0], out.shape, nullptr); };
  }
  if (name == "transpose") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    const std::vector<int64_t> perm64 = attrs.Ints("perm");
    Expect(err, perm64.size() == static_cast<size_t>(x.shape.rank), "perm needs one entry per dim");
    std::vector<int> perm;
    std::vector<bool> seen(x.shape.rank, false);
    TensorShape out;
    out.rank = x.shape.rank;
    for (int d = 0; d < x.shape.rank; ++d) {
      Expect(err, perm64[d] >= 0 && perm64[d] < x.shape.rank && !seen[perm64[d]], "perm is not a permutation");
      seen[perm64[d]] = true;
      perm.push_back(static_cast<int>(perm64[d]));
      out.dims[d] = x.shape.dims[perm64[d]];
    }
    ExpectOutput(err, call.outputs[0], x.dtype, out);
    return [=](auto& in, auto& o) { return LaunchTranspose(x.dtype, in[0], x.shape, perm.data(), o[0], nullptr); };
  }
  if (name == "expand") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    const OutputSpec& out = call.outputs[0];
    TensorShape both;
    Expect(err, out.dtype == x.dtype && BroadcastShapes(x.shape, out.shape, &both) && SameShape(both, out.shape),
           "x must broadcast to the output dims");
    return [=](auto& in, auto& o) { return LaunchExpand(x.dtype, in[0], x.shape, o[0], out.shape, nullptr); };
  }
  if (name == "pad") {
    ExpectCounts(err, call, 1, 1);
    const HostTensor& x = Required(err, call, 0);
    const std::vector<int64_t> begin = attrs.Ints("padsBegin");
    const OutputSpec& out = call.outputs[0];
    Expect(err, begin.size() == static_cast<size_t>(x.shape.rank) && out.dtype == x.dtype && out.shape.rank == x.shape.rank,
           "padsBegin needs one entry per dim; output must match x's dtype and rank");
    const std::string mode_name = attrs.Has("mode") ? attrs.String("mode") : "constant";
    const PadMode mode = ParseName(err, mode_name, std::map<std::string, PadMode>{{"constant", PadMode::kConstant},
        {"reflect", PadMode::kReflect}, {"edge", PadMode::kEdge}}, "pad mode");
    for (int d = 0; d < x.shape.rank; ++d) {
      if (mode != PadMode::kConstant && out.shape.dims[d] > 0) Expect(err, x.shape.dims[d] > 0, "edge/reflect need non-empty dims");
    }
    const double value = attrs.Number("value", 0.0);
    return [=](auto& in, auto& o) { return LaunchPad(x.dtype, in[0], x.shape, begin.data(), o[0], out.shape, mode, value, nullptr); };
  }
  if (name == "biasActivation") {
    ExpectCounts(err, call, 3, 1);
    const HostTensor& x = Required(err, call, 0);
    Expect(err, IsFloat(x.dtype) && x.shape.rank >= 1, "x must be float32/float16 of rank >= 1");
    const int axis = NormalizeAxis(err, attrs.Int("axis", -1), x.shape.rank);
    int64_t outer, inner;
    SplitAt(x.shape, axis, &outer, &inner);
    const int64_t channels = x.shape.dims[axis];
    if (call.inputs[1].present) {
      Expect(err, call.inputs[1].dtype == x.dtype && call.inputs[1].shape.ElementCount() == channels, "bias must hold one value per channel");
    }
    if (call.inputs[2].present) Expect(err, call.inputs[2].dtype == x.dtype && SameShape(call.inputs[2].shape, x.shape), "residual must match x");
    ExpectOutput(err, call.outputs[0], x.dtype, x.shape);
    const UnaryOp activation = attrs.Has("activation") ? ParseName(err, attrs.String("activation"), UnaryNames(), "activation") : UnaryOp::kIdentity;
    const UnaryParams params = ParamsOf(attrs);
    const ResidualPlacement placement = attrs.Bool("residualBeforeActivation") ? ResidualPlacement::kBeforeActivation : ResidualPlacement::kAfterActivation;
    return [=](auto& in, auto& o) {
      return LaunchBiasActivation(x.dtype, in[0], in[1], in[2], o[0], outer, channels, inner, activation, params, placement, nullptr);
    };
  }
  err.Type("unknown kernel (binary where unary cast reduce softmax layerNorm gather concat slice transpose expand pad biasActivation)");
}

HostTensor ParseInput(const SpecError& err, const Napi::Value& v, size_t i) {
  HostTensor t;
  if (v.IsNull() || v.IsUndefined()) return t;
  const std::string what = "inputs[" + std::to_string(i) + "]";
  if (!v.IsObject()) err.Type(what + " must be { data, dims, dtype } or null");
  Napi::Object o = v.As<Napi::Object>();
  t.present = true;
  t.dtype = ToDType(err, o.Get("dtype"), what + ".dtype");
  t.shape = ToShape(err, o.Get("dims"), what + ".dims");
  Napi::Value data = o.Get("data");
  if (!data.IsTypedArray()) err.Type(what + ".data must be a TypedArray");
  Napi::TypedArray array = data.As<Napi::TypedArray>();
  t.data = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
  t.bytes = array.ByteLength();
  const size_t want = static_cast<size_t>(t.shape.ElementCount()) * kernels::DTypeSize(t.dtype);
  if (t.bytes != want) err.Range(what + ".data holds " + std::to_string(t.bytes) + " bytes, dims and dtype need " + std::to_string(want));
  return t;
}

OutputSpec ParseOutput(const SpecError& err, const Napi::Value& v, size_t i) {
  OutputSpec s;
  if (v.IsNull() || v.IsUndefined()) return s;
  const std::string what = "outputs[" + std::to_string(i) + "]";
  if (!v.IsObject()) err.Type(what + " must be { dims, dtype } or null");
  Napi::Object o = v.As<Napi::Object>();
  s.present = true;
  s.dtype = ToDType(err, o.Get("dtype"), what + ".dtype");
  s.shape = ToShape(err, o.Get("dims"), what + ".dims");
  return s;
}

Napi::Value NewHostArray(Napi::Env env, DType dtype, size_t count, Napi::ArrayBuffer* buffer) {
  *buffer = Napi::ArrayBuffer::New(env, count * kernels::DTypeSize(dtype));
  switch (dtype) {
    case DType::kFloat32: return Napi::Float32Array::New(env, count, *buffer, 0);
    case DType::kFloat16: return Napi::Uint16Array::New(env, count, *buffer, 0);
    case DType::kInt32: return Napi::Int32Array::New(env, count, *buffer, 0);
    case DType::kInt64: return Napi::BigInt64Array::New(env, count, *buffer, 0);
    case DType::kInt8: return Napi::Int8Array::New(env, count, *buffer, 0);
    case DType::kBool: case DType::kUint8: return Napi::Uint8Array::New(env, count, *buffer, 0);
  }
  return env.Null();
}

Napi::Value Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsObject()) {
    ThrowJs(env, "INVALID_ARGUMENT", "kernelsJs.run(name, { inputs, outputs, attrs?, device? })", true);
  }
  const std::string name = info[0].As<Napi::String>().Utf8Value();
  const SpecError err(env, name);
  Napi::Object spec = info[1].As<Napi::Object>();
  if (!spec.Get("inputs").IsArray() || !spec.Get("outputs").IsArray()) err.Type("spec.inputs and spec.outputs must be arrays");
  Call call;
  Napi::Array inputs = spec.Get("inputs").As<Napi::Array>();
  Napi::Array outputs = spec.Get("outputs").As<Napi::Array>();
  for (uint32_t i = 0; i < inputs.Length(); ++i) call.inputs.push_back(ParseInput(err, inputs.Get(i), i));
  for (uint32_t i = 0; i < outputs.Length(); ++i) call.outputs.push_back(ParseOutput(err, outputs.Get(i), i));
  Napi::Value attrs_value = spec.Get("attrs");
  if (!attrs_value.IsUndefined() && !attrs_value.IsObject()) err.Type("spec.attrs must be an object");
  const Attrs attrs(err, attrs_value.IsObject() ? attrs_value.As<Napi::Object>() : Napi::Object::New(env));
  const int64_t device = spec.Has("device") ? ToInt(err, spec.Get("device"), "spec.device") : 0;
  if (device < 0 || device > 1024) err.Range("spec.device out of range");
  const Launch launch = Plan(err, name, call, attrs);

  // Everything is checked: now the device.
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(static_cast<int>(device)));
  std::vector<DeviceAllocation> in_memory(call.inputs.size()), out_memory(call.outputs.size());
  std::vector<void*> in_ptrs(call.inputs.size(), nullptr), out_ptrs(call.outputs.size(), nullptr);
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const HostTensor& t = call.inputs[i];
    if (!t.present) continue;
    // One byte minimum, so an empty tensor still has a distinct, valid pointer.
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&in_memory[i].ptr, t.bytes > 0 ? t.bytes : 1));
    if (t.bytes > 0) CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy), hipMemcpy(in_memory[i].ptr, t.data, t.bytes, hipMemcpyHostToDevice));
    in_ptrs[i] = in_memory[i].ptr;
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const OutputSpec& s = call.outputs[i];
    if (!s.present) continue;
    const size_t bytes = static_cast<size_t>(s.shape.ElementCount()) * kernels::DTypeSize(s.dtype);
    CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&out_memory[i].ptr, bytes > 0 ? bytes : 1));
    out_ptrs[i] = out_memory[i].ptr;
  }
  const auto started = std::chrono::steady_clock::now();
  CheckGpu(env, "kernel launch", launch(in_ptrs, out_ptrs));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipDeviceSynchronize), hipDeviceSynchronize());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  Napi::Array results = Napi::Array::New(env, call.outputs.size());
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const OutputSpec& s = call.outputs[i];
    if (!s.present) {
      results.Set(static_cast<uint32_t>(i), env.Null());
      continue;
    }
    const size_t count = static_cast<size_t>(s.shape.ElementCount());
    Napi::ArrayBuffer buffer;
    Napi::Value array = NewHostArray(env, s.dtype, count, &buffer);
    if (count > 0) {
      CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy),
               hipMemcpy(buffer.Data(), out_ptrs[i], count * kernels::DTypeSize(s.dtype), hipMemcpyDeviceToHost));
    }
    results.Set(static_cast<uint32_t>(i), array);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("outputs", results);
  result.Set("ms", Napi::Number::New(env, ms));
  return result;
}

}  // namespace

void InitKernelsJs(Napi::Env env, Napi::Object exports) {
  Napi::Object kernels_js = Napi::Object::New(env);
  kernels_js.Set("run", Napi::Function::New<Run>(env, "run"));
  exports.Set("kernelsJs", kernels_js);
}

}  // namespace switchyard
