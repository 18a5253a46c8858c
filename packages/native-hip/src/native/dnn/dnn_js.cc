// JS test entries of the DNN seam: dnnInfo(), dnnConv2d, dnnConvTranspose2d, dnnPool2d,
// dnnBatchNorm, dnnAlgoCacheStats. Each runs on the device's stream and waits for it (plans call
// dnn.h directly).
#include <napi.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "dnn/algo_cache.h"
#include "dnn.h"
#include "gpu_errors.h"
#include "runtime/runtime.h"

namespace switchyard {
namespace {

class Reader {
 public:
  Reader(Napi::Env env, const Napi::Value& value, const char* where) : env_(env), where_(where) {
    if (!value.IsObject()) ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": expected an options object", true);
    object_ = value.As<Napi::Object>();
  }
  int Int(const char* key, int fallback, int min = 0) {
    Napi::Value value = object_.Get(key);
    if (value.IsUndefined()) {
      if (fallback < min) ThrowJs(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + key + " is required", true);
      return fallback;
    }
    const double number = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : NAN;
    if (!(number >= min) || number != std::floor(number) || number > 1073741824.0) {
      ThrowJsRange(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + key + " must be an integer >= " + std::to_string(min));
    }
    return static_cast<int>(number);
  }
  // [a, b] from an array of two integers, or the fallback.
  void Pair(const char* key, int* a, int* b, int fallback, int min) {
    Napi::Value value = object_.Get(key);
    if (value.IsUndefined()) {
      *a = *b = fallback;
      return;
    }
    std::vector<int> values = Ints(key, value, 2, min);
    *a = values[0];
    *b = values[1];
  }
  // pads [top, left, bottom, right] (ONNX order: begins then ends).
  void Pads(int* top, int* left, int* bottom, int* right) {
    Napi::Value value = object_.Get("pads");
    if (value.IsUndefined()) {
      *top = *left = *bottom = *right = 0;
      return;
    }
    std::vector<int> values = Ints("pads", value, 4, 0);
    *top = values[0], *left = values[1], *bottom = values[2], *right = values[3];
  }
  std::string String(const char* key, const std::string& fallback) {
    Napi::Value value = object_.Get(key);
    if (value.IsUndefined()) return fallback;
    if (!value.IsString()) ThrowJs(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + key + " must be a string", true);
    return value.As<Napi::String>().Utf8Value();
  }
  DeviceBuffer* Buffer(const char* key, bool optional = false) {
    Napi::Value value = object_.Get(key);
    if (optional && (value.IsUndefined() || value.IsNull())) return nullptr;
    return DeviceBuffer::FromValue(env_, value, (std::string(where_) + ": " + key).c_str());
  }
  double Number(const char* key, double fallback) {
    Napi::Value value = object_.Get(key);
    return value.IsUndefined() ? fallback : value.ToNumber().DoubleValue();
  }
  dnn::DataType DType() {
    const std::string name = String("dtype", "float32");
    if (name == "float32") return dnn::DataType::kFloat32;
    if (name == "float16") return dnn::DataType::kFloat16;
    ThrowJs(env_, "INVALID_ARGUMENT", std::string(where_) + ": dtype must be 'float32' or 'float16'", true);
  }
  // Throws unless `buffer` holds `elements` of `element_bytes`.
  void Fits(const DeviceBuffer* buffer, double elements, size_t element_bytes, const char* name) {
    if (buffer != nullptr && elements * element_bytes > static_cast<double>(buffer->byte_length())) {
      ThrowJsRange(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + name + " needs " +
                                            std::to_string(static_cast<long long>(elements * element_bytes)) +
                                            " bytes, the buffer has " + std::to_string(buffer->byte_length()));
    }
  }

 private:
  std::vector<int> Ints(const char* key, const Napi::Value& value, size_t count, int min) {
    if (!value.IsArray() || value.As<Napi::Array>().Length() != count) {
      ThrowJs(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + key + " must be an array of " + std::to_string(count) + " integers", true);
    }
    std::vector<int> out;
    for (uint32_t i = 0; i < count; ++i) {
      Napi::Value item = value.As<Napi::Array>().Get(i);
      const double number = item.IsNumber() ? item.As<Napi::Number>().DoubleValue() : NAN;
      if (!(number >= min) || number != std::floor(number) || number > 1073741824.0) {
        ThrowJsRange(env_, "INVALID_ARGUMENT", std::string(where_) + ": " + key + " entries must be integers >= " + std::to_string(min));
      }
      out.push_back(static_cast<int>(number));
    }
    return out;
  }

  Napi::Env env_;
  const char* where_;
  Napi::Object object_;
};

size_t Bytes(dnn::DataType dtype) { return dtype == dnn::DataType::kFloat16 ? 2 : 4; }

void ThrowIfUnavailable(Napi::Env env, const char* where) {
  if (dnn::Unavailable() == nullptr) return;
  Napi::Error error = Napi::Error::New(env, std::string(where) + ": " + dnn::Unavailable());
  error.Set("code", Napi::String::New(env, "DNN_UNAVAILABLE"));
  throw error;
}

void Finish(Napi::Env env, const char* where, int device, hipStream_t stream, const dnn::Status& status) {
  if (!status.ok) {
    Napi::Error error = Napi::Error::New(env, std::string(where) + ": " + status.message);
    error.Set("code", Napi::String::New(env, status.unsupported ? "DNN_UNSUPPORTED" : "DNN_ERROR"));
    throw error;
  }
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamSynchronize), hipStreamSynchronize(stream));
}

Napi::Value DnnInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("available", Napi::Boolean::New(env, dnn::Unavailable() == nullptr));
  out.Set("backend", Napi::String::New(env, dnn::BackendName()));
  out.Set("version", Napi::Number::New(env, dnn::LibraryVersion()));
  if (dnn::Unavailable() != nullptr) out.Set("reason", Napi::String::New(env, dnn::Unavailable()));
  return out;
}

// Conv and ConvTranspose share their options: { x, w, b?, residual?, y, dtype?, inputShape [n,c,h,w],
// outputChannels, kernelShape [kh,kw], pads? [t,l,b,r], strides?, dilations?, group?, outputPadding?,
// activation? 'relu'|'none', algoSearch?, cacheDir? } (see binding.ts).
Napi::Value Conv(const Napi::CallbackInfo& info, bool transposed) {
  Napi::Env env = info.Env();
  const char* where = transposed ? "dnnConvTranspose2d" : "dnnConv2d";
  Reader r(env, info[0], where);
  dnn::Conv2dDesc d;
  d.dtype = r.DType();
  Napi::Value shape = info[0].As<Napi::Object>().Get("inputShape");
  if (!shape.IsArray() || shape.As<Napi::Array>().Length() != 4) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": inputShape must be [n, c, h, w]", true);
  }
  int dims[4];
  for (uint32_t i = 0; i < 4; ++i) {
    Napi::Value v = shape.As<Napi::Array>().Get(i);
    const double number = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
    if (!(number >= 1) || number != std::floor(number) || number > 1073741824.0) {
      ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": inputShape entries must be integers >= 1");
    }
    dims[i] = static_cast<int>(number);
  }
  d.n = dims[0], d.c = dims[1], d.h = dims[2], d.w = dims[3];
  d.k = r.Int("outputChannels", -1, 1);
  r.Pair("kernelShape", &d.kh, &d.kw, -1, 1);
  if (d.kh < 1) ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": kernelShape is required", true);
  r.Pads(&d.pad_top, &d.pad_left, &d.pad_bottom, &d.pad_right);
  r.Pair("strides", &d.stride_h, &d.stride_w, 1, 1);
  r.Pair("dilations", &d.dilation_h, &d.dilation_w, 1, 1);
  r.Pair("outputPadding", &d.output_padding_h, &d.output_padding_w, 0, 0);
  d.group = r.Int("group", 1, 1);
  if (d.c % d.group != 0 || d.k % d.group != 0) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": channels must be divisible by group");
  }
  const int oh = dnn::ConvOutputSize(d, true, transposed), ow = dnn::ConvOutputSize(d, false, transposed);
  if (oh <= 0 || ow <= 0) ThrowJsRange(env, "INVALID_ARGUMENT", std::string(where) + ": the output shape would be empty or invalid");
  dnn::ConvArgs args;
  DeviceBuffer* x = r.Buffer("x");
  DeviceBuffer* w = r.Buffer("w");
  DeviceBuffer* b = r.Buffer("b", true);
  DeviceBuffer* residual = transposed ? nullptr : r.Buffer("residual", true);
  DeviceBuffer* y = r.Buffer("y");
  const size_t e = Bytes(d.dtype);
  const double out_elements = 1.0 * d.n * d.k * oh * ow;
  r.Fits(x, 1.0 * d.n * d.c * d.h * d.w, e, "x");
  r.Fits(w, transposed ? 1.0 * d.c * (d.k / d.group) * d.kh * d.kw : 1.0 * d.k * (d.c / d.group) * d.kh * d.kw, e, "w");
  r.Fits(b, d.k, e, "b");
  r.Fits(residual, out_elements, e, "residual");
  r.Fits(y, out_elements, e, "y");
  const std::string activation = r.String("activation", "none");
  if (activation == "relu") args.activation = dnn::Activation::kRelu;
  else if (activation != "none") ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": activation must be 'relu' or 'none'", true);
  dnn::ConvOptions options;
  const std::string search = r.String("algoSearch", "heuristic");
  if (search == "exhaustive") options.search = dnn::AlgoSearch::kExhaustive;
  else if (search == "heuristic") options.search = dnn::AlgoSearch::kHeuristic;
  else if (search == "default") options.search = dnn::AlgoSearch::kDefault;
  else ThrowJs(env, "INVALID_ARGUMENT", std::string(where) + ": algoSearch must be 'exhaustive', 'heuristic' or 'default'", true);
  options.cache_dir = r.String("cacheDir", "");
  ThrowIfUnavailable(env, where);
  args.x = x->data();
  args.w = w->data();
  args.bias = b ? b->data() : nullptr;
  args.residual = residual ? residual->data() : nullptr;
  args.y = y->data();
  const int device = y->device_id();
  hipStream_t stream;
  CheckGpu(env, where, runtime::DeviceStream(device, &stream));
  const dnn::Status status = transposed ? dnn::ConvTransposeForward(device, stream, d, args, options)
                                        : dnn::ConvForward(device, stream, d, args, options);
  Finish(env, where, device, stream, status);
  Napi::Array out_shape = Napi::Array::New(env, 4);
  const int values[4] = {d.n, d.k, oh, ow};
  for (uint32_t i = 0; i < 4; ++i) out_shape.Set(i, Napi::Number::New(env, values[i]));
  return out_shape;
}

// [sync] dnnConv2d(options) -> output shape [n, k, oh, ow]
Napi::Value DnnConv2d(const Napi::CallbackInfo& info) { return Conv(info, false); }
// [sync] dnnConvTranspose2d(options) -> output shape
Napi::Value DnnConvTranspose2d(const Napi::CallbackInfo& info) { return Conv(info, true); }

// [sync] dnnPool2d({ x, y, dtype?, mode: 'max'|'average', countIncludePad?, inputShape, kernelShape,
//                    pads?, strides? }) -> output shape
Napi::Value DnnPool2d(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* where = "dnnPool2d";
  Reader r(env, info[0], where);
  dnn::Pool2dDesc d;
  d.dtype = r.DType();
  Napi::Value shape = info[0].As<Napi::Object>().Get("inputShape");
  if (!shape.IsArray() || shape.As<Napi::Array>().Length() != 4) ThrowJs(env, "INVALID_ARGUMENT", "dnnPool2d: inputShape must be [n, c, h, w]", true);
  int dims[4];
  for (uint32_t i = 0; i < 4; ++i) {
    Napi::Value v = shape.As<Napi::Array>().Get(i);
    const double number = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
    if (!(number >= 1) || number != std::floor(number) || number > 1073741824.0) {
      ThrowJsRange(env, "INVALID_ARGUMENT", "dnnPool2d: inputShape entries must be integers >= 1");
    }
    dims[i] = static_cast<int>(number);
  }
  d.n = dims[0], d.c = dims[1], d.h = dims[2], d.w = dims[3];
  const std::string mode = r.String("mode", "");
  const bool include_pad = info[0].As<Napi::Object>().Get("countIncludePad").ToBoolean();
  if (mode == "max") d.mode = dnn::PoolMode::kMax;
  else if (mode == "average") d.mode = include_pad ? dnn::PoolMode::kAverageIncludePad : dnn::PoolMode::kAverageExcludePad;
  else ThrowJs(env, "INVALID_ARGUMENT", "dnnPool2d: mode must be 'max' or 'average'", true);
  r.Pair("kernelShape", &d.kh, &d.kw, -1, 1);
  if (d.kh < 1) ThrowJs(env, "INVALID_ARGUMENT", "dnnPool2d: kernelShape is required", true);
  r.Pads(&d.pad_top, &d.pad_left, &d.pad_bottom, &d.pad_right);
  r.Pair("strides", &d.stride_h, &d.stride_w, 1, 1);
  const int oh = dnn::PoolOutputSize(d, true), ow = dnn::PoolOutputSize(d, false);
  if (oh <= 0 || ow <= 0) ThrowJsRange(env, "INVALID_ARGUMENT", "dnnPool2d: the output shape would be empty or invalid");
  DeviceBuffer* x = r.Buffer("x");
  DeviceBuffer* y = r.Buffer("y");
  r.Fits(x, 1.0 * d.n * d.c * d.h * d.w, Bytes(d.dtype), "x");
  r.Fits(y, 1.0 * d.n * d.c * oh * ow, Bytes(d.dtype), "y");
  ThrowIfUnavailable(env, where);
  hipStream_t stream;
  CheckGpu(env, where, runtime::DeviceStream(y->device_id(), &stream));
  Finish(env, where, y->device_id(), stream, dnn::Pool2dForward(y->device_id(), stream, d, x->data(), y->data()));
  Napi::Array out_shape = Napi::Array::New(env, 4);
  const int values[4] = {d.n, d.c, oh, ow};
  for (uint32_t i = 0; i < 4; ++i) out_shape.Set(i, Napi::Number::New(env, values[i]));
  return out_shape;
}

// [sync] dnnBatchNorm({ x, scale, bias, mean, var, y, dtype?, n, c, spatial, epsilon? })
Napi::Value DnnBatchNorm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* where = "dnnBatchNorm";
  Reader r(env, info[0], where);
  const dnn::DataType dtype = r.DType();
  const int n = r.Int("n", -1, 1), c = r.Int("c", -1, 1), spatial = r.Int("spatial", -1, 1);
  const double epsilon = r.Number("epsilon", 1e-5);
  DeviceBuffer* x = r.Buffer("x");
  DeviceBuffer* y = r.Buffer("y");
  DeviceBuffer* params[4] = {r.Buffer("scale"), r.Buffer("bias"), r.Buffer("mean"), r.Buffer("var")};
  r.Fits(x, 1.0 * n * c * spatial, Bytes(dtype), "x");
  r.Fits(y, 1.0 * n * c * spatial, Bytes(dtype), "y");
  for (DeviceBuffer* p : params) r.Fits(p, c, 4, "scale/bias/mean/var");
  ThrowIfUnavailable(env, where);
  hipStream_t stream;
  CheckGpu(env, where, runtime::DeviceStream(y->device_id(), &stream));
  Finish(env, where, y->device_id(), stream,
         dnn::BatchNormInference(y->device_id(), stream, dtype, n, c, spatial, x->data(), params[0]->data(), params[1]->data(),
                                 params[2]->data(), params[3]->data(), epsilon, y->data()));
  return env.Undefined();
}

// [sync] dnnAlgoCacheStats(kind = 'conv') -> { searches, memoryHits, diskHits, file }: the algorithm
// cache's counters for convolutions ('conv'), cublasLt GEMM choices ('gemm') or the Conv steps' chosen
// forms ('convform': library call or im2col + GEMM).
Napi::Value DnnAlgoCacheStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  dnn::CacheKind kind = dnn::CacheKind::kConv;
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    const std::string name = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    if (name == "gemm") kind = dnn::CacheKind::kGemm;
    else if (name == "convform") kind = dnn::CacheKind::kConvForm;
    else if (name != "conv") ThrowJs(env, "INVALID_ARGUMENT", "dnnAlgoCacheStats: kind must be 'conv', 'gemm' or 'convform'", true);
  }
  const dnn::AlgoCacheStats stats = dnn::GetAlgoCacheStats(kind);
  Napi::Object out = Napi::Object::New(env);
  out.Set("searches", Napi::Number::New(env, static_cast<double>(stats.searches)));
  out.Set("memoryHits", Napi::Number::New(env, static_cast<double>(stats.memory_hits)));
  out.Set("diskHits", Napi::Number::New(env, static_cast<double>(stats.disk_hits)));
  out.Set("file", Napi::String::New(env, stats.last_file));
  return out;
}

}  // namespace

void InitDnn(Napi::Env env, Napi::Object exports) {
  exports.Set("dnnInfo", Napi::Function::New<DnnInfo>(env, "dnnInfo"));
  exports.Set("dnnConv2d", Napi::Function::New<DnnConv2d>(env, "dnnConv2d"));
  exports.Set("dnnConvTranspose2d", Napi::Function::New<DnnConvTranspose2d>(env, "dnnConvTranspose2d"));
  exports.Set("dnnPool2d", Napi::Function::New<DnnPool2d>(env, "dnnPool2d"));
  exports.Set("dnnBatchNorm", Napi::Function::New<DnnBatchNorm>(env, "dnnBatchNorm"));
  exports.Set("dnnAlgoCacheStats", Napi::Function::New<DnnAlgoCacheStats>(env, "dnnAlgoCacheStats"));
}

}  // namespace switchyard
