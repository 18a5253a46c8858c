// JS test entries of the BLAS seam: blasInfo(), blasGemm({...}) and blasPreparedGemm({...}) on DeviceBuffers.
#include <napi.h>

#include <cmath>
#include <memory>
#include <string>

#include "blas.h"
#include "device_buffer.h"
#include "gpu_errors.h"
#include "runtime/runtime.h"

namespace switchyard {
namespace {

int64_t IntField(Napi::Env env, const Napi::Object& object, const char* key, int64_t fallback) {
  Napi::Value value = object.Get(key);
  if (value.IsUndefined()) return fallback;
  const double number = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : NAN;
  if (!(number >= 0) || number != std::floor(number) || number > 9007199254740991.0) {
    ThrowJs(env, "INVALID_ARGUMENT", std::string("blasGemm: ") + key + " must be a non-negative integer", true);
  }
  return static_cast<int64_t>(number);
}

// [sync] blasInfo() -> { available, backend, reason? }
Napi::Value BlasInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("available", Napi::Boolean::New(env, blas::Unavailable() == nullptr));
  out.Set("backend", Napi::String::New(env, blas::BackendName()));
  if (blas::Unavailable() != nullptr) out.Set("reason", Napi::String::New(env, blas::Unavailable()));
  return out;
}

// The options shared by blasGemm and blasPreparedGemm: { a, b, c, m, n, k, transA?, transB?, alpha?,
// beta?, dtype?, lda?, ldb?, ldc?, batch?, strideA?, strideB?, strideC? } (row-major), checked against
// the buffers' sizes. Sets *c_out to C's buffer.
blas::GemmDesc ParseGemm(Napi::Env env, const Napi::Object& o, const char* where, DeviceBuffer** c_out) {
  const std::string w = where;
  DeviceBuffer* a = DeviceBuffer::FromValue(env, o.Get("a"), (w + ": a").c_str());
  DeviceBuffer* b = DeviceBuffer::FromValue(env, o.Get("b"), (w + ": b").c_str());
  DeviceBuffer* c = DeviceBuffer::FromValue(env, o.Get("c"), (w + ": c").c_str());
  if (a->device_id() != c->device_id() || b->device_id() != c->device_id()) {
    ThrowJs(env, "INVALID_ARGUMENT", w + ": a, b and c must be on one device");
  }
  blas::GemmDesc d;
  Napi::Value dtype = o.Get("dtype");
  if (!dtype.IsUndefined()) {
    const std::string name = dtype.IsString() ? dtype.As<Napi::String>().Utf8Value() : "";
    if (name == "float32") d.dtype = blas::DataType::kFloat32;
    else if (name == "float16") d.dtype = blas::DataType::kFloat16;
    else ThrowJs(env, "INVALID_ARGUMENT", w + ": dtype must be 'float32' or 'float16'", true);
  }
  d.m = IntField(env, o, "m", -1);
  d.n = IntField(env, o, "n", -1);
  d.k = IntField(env, o, "k", -1);
  d.trans_a = o.Get("transA").ToBoolean();
  d.trans_b = o.Get("transB").ToBoolean();
  if (o.Has("alpha")) d.alpha = o.Get("alpha").ToNumber().FloatValue();
  if (o.Has("beta")) d.beta = o.Get("beta").ToNumber().FloatValue();
  d.lda = IntField(env, o, "lda", 0);
  d.ldb = IntField(env, o, "ldb", 0);
  d.ldc = IntField(env, o, "ldc", 0);
  d.batch = IntField(env, o, "batch", 1);
  d.stride_a = IntField(env, o, "strideA", 0);
  d.stride_b = IntField(env, o, "strideB", 0);
  d.stride_c = IntField(env, o, "strideC", 0);
  d.a = a->data();
  d.b = b->data();
  d.c = c->data();
  blas::Status checked = blas::Normalize(&d);
  if (!checked.ok) ThrowJsRange(env, "INVALID_ARGUMENT", w + ": " + checked.message);
  // Every element the library may touch must lie inside its buffer.
  const size_t element = d.dtype == blas::DataType::kFloat16 ? 2 : 4;
  auto extent = [&](int64_t rows, int64_t ld, int64_t stride) {
    if (rows == 0) return int64_t{0};
    return (d.batch - 1) * stride + (rows - 1) * ld + ld;  // conservative: full last row of ld
  };
  const int64_t rows_a = d.trans_a ? d.k : d.m, rows_b = d.trans_b ? d.n : d.k;
  auto check = [&](const DeviceBuffer* buffer, int64_t elements, const char* name) {
    if (static_cast<double>(elements) * element > static_cast<double>(buffer->byte_length())) {
      ThrowJsRange(env, "INVALID_ARGUMENT", w + ": " + name + " needs " + std::to_string(elements * element) + " bytes, the buffer has " +
                                           std::to_string(buffer->byte_length()));
    }
  };
  if (d.k > 0) {
    check(a, extent(rows_a, d.lda, d.stride_a), "a");
    check(b, extent(rows_b, d.ldb, d.stride_b), "b");
  }
  check(c, extent(d.m, d.ldc, d.stride_c), "c");
  if (blas::Unavailable() != nullptr) {
    Napi::Error error = Napi::Error::New(env, w + ": " + blas::Unavailable());
    error.Set("code", Napi::String::New(env, "BLAS_UNAVAILABLE"));
    throw error;
  }
  *c_out = c;
  return d;
}

// [sync] blasGemm(options): on the device's stream, and waits for it (a test entry: plans call
// blas::Gemm directly).
Napi::Value BlasGemm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "blasGemm: expected an options object", true);
  DeviceBuffer* c = nullptr;
  const blas::GemmDesc d = ParseGemm(env, info[0].As<Napi::Object>(), "blasGemm", &c);
  hipStream_t stream;
  CheckGpu(env, "blasGemm", runtime::DeviceStream(c->device_id(), &stream));
  blas::Status status = blas::Gemm(c->device_id(), stream, d);
  if (!status.ok) ThrowJs(env, "RUNTIME", "blasGemm: " + status.message);
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamSynchronize), hipStreamSynchronize(stream));
  return env.Undefined();
}

// [sync] blasPreparedGemm({ ...blasGemm's options, bias?, cacheDir? }) -> { choice, biasFused }: the
// plans' path -- PrepareGemm (the algorithm search, or its answer from the cache in `cacheDir`:
// "" = the default folder, "-" = memory only) then RunPreparedGemm -- with C's contents kept across
// the search. `bias` (n values, added to every row) needs batch 1 and beta 0, as a plan's MatMulBias.
Napi::Value BlasPreparedGemm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* where = "blasPreparedGemm";
  if (!info[0].IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "blasPreparedGemm: expected an options object", true);
  Napi::Object o = info[0].As<Napi::Object>();
  DeviceBuffer* c = nullptr;
  blas::GemmDesc d = ParseGemm(env, o, where, &c);
  const size_t element = d.dtype == blas::DataType::kFloat16 ? 2 : 4;
  DeviceBuffer* bias = nullptr;
  if (!o.Get("bias").IsUndefined()) {
    bias = DeviceBuffer::FromValue(env, o.Get("bias"), "blasPreparedGemm: bias");
    if (bias->device_id() != c->device_id()) ThrowJs(env, "INVALID_ARGUMENT", "blasPreparedGemm: bias must be on C's device");
    if (d.batch != 1 || d.beta != 0.0f) ThrowJsRange(env, "INVALID_ARGUMENT", "blasPreparedGemm: a bias needs batch 1 and beta 0");
    if (static_cast<double>(d.n) * element > static_cast<double>(bias->byte_length())) {
      ThrowJsRange(env, "INVALID_ARGUMENT", "blasPreparedGemm: bias needs " + std::to_string(d.n * element) + " bytes");
    }
  }
  Napi::Value dir = o.Get("cacheDir");
  if (!dir.IsUndefined() && !dir.IsString()) ThrowJs(env, "INVALID_ARGUMENT", "blasPreparedGemm: cacheDir must be a string", true);
  const std::string cache_dir = dir.IsString() ? dir.As<Napi::String>().Utf8Value() : "";
  const int device = c->device_id();
  hipStream_t stream;
  CheckGpu(env, where, runtime::DeviceStream(device, &stream));
  // The search writes C: keep a copy of what the caller put there (beta may read it).
  const size_t c_bytes = c->byte_length();
  void* saved = nullptr;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&saved, c_bytes > 0 ? c_bytes : 1));
  std::unique_ptr<void, void (*)(void*)> free_saved(saved, [](void* p) { (void)hipFree(p); });
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpyAsync), hipMemcpyAsync(saved, c->data(), c_bytes, hipMemcpyDeviceToDevice, stream));
  blas::PreparedGemm prepared;
  blas::Status status = blas::PrepareGemm(device, stream, d, bias != nullptr ? bias->data() : nullptr, &prepared, cache_dir);
  if (!status.ok) ThrowJs(env, "RUNTIME", std::string(where) + ": " + status.message);
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpyAsync), hipMemcpyAsync(c->data(), saved, c_bytes, hipMemcpyDeviceToDevice, stream));
  if (bias != nullptr && !prepared.bias_fused) {
    // As a plan's MatMulBias: the bias broadcast into C's rows first, the GEMM accumulating onto it.
    for (int64_t row = 0; row < d.m; ++row) {
      char* dst = static_cast<char*>(d.c) + static_cast<size_t>(row * d.ldc) * element;
      CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpyAsync), hipMemcpyAsync(dst, bias->data(), d.n * element, hipMemcpyDeviceToDevice, stream));
    }
    d.beta = 1.0f;
  }
  status = blas::RunPreparedGemm(prepared, device, stream, d, bias != nullptr ? bias->data() : nullptr);
  if (!status.ok) ThrowJs(env, "RUNTIME", std::string(where) + ": " + status.message);
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamSynchronize), hipStreamSynchronize(stream));
  Napi::Object out = Napi::Object::New(env);
  out.Set("choice", Napi::String::New(env, prepared.choice));
  out.Set("biasFused", Napi::Boolean::New(env, prepared.bias_fused));
  return out;
}

}  // namespace

void InitBlas(Napi::Env env, Napi::Object exports) {
  exports.Set("blasInfo", Napi::Function::New<BlasInfo>(env, "blasInfo"));
  exports.Set("blasGemm", Napi::Function::New<BlasGemm>(env, "blasGemm"));
  exports.Set("blasPreparedGemm", Napi::Function::New<BlasPreparedGemm>(env, "blasPreparedGemm"));
}

}  // namespace switchyard
