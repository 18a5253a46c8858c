// JS test entry of the BLAS seam: blasInfo() and blasGemm({...}) on DeviceBuffers.
#include <napi.h>

#include <cmath>
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
    throw Napi::TypeError::New(env, std::string("blasGemm: ") + key + " must be a non-negative integer");
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

// [sync] blasGemm({ a, b, c, m, n, k, transA?, transB?, alpha?, beta?, dtype?, lda?, ldb?, ldc?,
//                   batch?, strideA?, strideB?, strideC? }): row-major, on the device's stream, and
// waits for it (a test entry: plans call blas::Gemm directly).
Napi::Value BlasGemm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) throw Napi::TypeError::New(env, "blasGemm: expected an options object");
  Napi::Object o = info[0].As<Napi::Object>();
  DeviceBuffer* a = DeviceBuffer::FromValue(env, o.Get("a"), "blasGemm: a");
  DeviceBuffer* b = DeviceBuffer::FromValue(env, o.Get("b"), "blasGemm: b");
  DeviceBuffer* c = DeviceBuffer::FromValue(env, o.Get("c"), "blasGemm: c");
  if (a->device_id() != c->device_id() || b->device_id() != c->device_id()) {
    throw Napi::Error::New(env, "blasGemm: a, b and c must be on one device");
  }
  blas::GemmDesc d;
  Napi::Value dtype = o.Get("dtype");
  if (!dtype.IsUndefined()) {
    const std::string name = dtype.IsString() ? dtype.As<Napi::String>().Utf8Value() : "";
    if (name == "float32") d.dtype = blas::DataType::kFloat32;
    else if (name == "float16") d.dtype = blas::DataType::kFloat16;
    else throw Napi::TypeError::New(env, "blasGemm: dtype must be 'float32' or 'float16'");
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
  if (!checked.ok) throw Napi::RangeError::New(env, "blasGemm: " + checked.message);
  // Every element the library may touch must lie inside its buffer.
  const size_t element = d.dtype == blas::DataType::kFloat16 ? 2 : 4;
  auto extent = [&](int64_t rows, int64_t ld, int64_t stride) {
    if (rows == 0) return int64_t{0};
    return (d.batch - 1) * stride + (rows - 1) * ld + ld;  // conservative: full last row of ld
  };
  const int64_t rows_a = d.trans_a ? d.k : d.m, rows_b = d.trans_b ? d.n : d.k;
  auto check = [&](const DeviceBuffer* buffer, int64_t elements, const char* name) {
    if (static_cast<double>(elements) * element > static_cast<double>(buffer->byte_length())) {
      throw Napi::RangeError::New(env, std::string("blasGemm: ") + name + " needs " + std::to_string(elements * element) +
                                           " bytes, the buffer has " + std::to_string(buffer->byte_length()));
    }
  };
  if (d.k > 0) {
    check(a, extent(rows_a, d.lda, d.stride_a), "a");
    check(b, extent(rows_b, d.ldb, d.stride_b), "b");
  }
  check(c, extent(d.m, d.ldc, d.stride_c), "c");
  if (blas::Unavailable() != nullptr) {
    Napi::Error error = Napi::Error::New(env, std::string("blasGemm: ") + blas::Unavailable());
    error.Set("code", Napi::String::New(env, "BLAS_UNAVAILABLE"));
    throw error;
  }
  hipStream_t stream;
  CheckGpu(env, "blasGemm", runtime::DeviceStream(c->device_id(), &stream));
  blas::Status status = blas::Gemm(c->device_id(), stream, d);
  if (!status.ok) throw Napi::Error::New(env, "blasGemm: " + status.message);
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamSynchronize), hipStreamSynchronize(stream));
  return env.Undefined();
}

}  // namespace

void InitBlas(Napi::Env env, Napi::Object exports) {
  exports.Set("blasInfo", Napi::Function::New<BlasInfo>(env, "blasInfo"));
  exports.Set("blasGemm", Napi::Function::New<BlasGemm>(env, "blasGemm"));
}

}  // namespace switchyard
