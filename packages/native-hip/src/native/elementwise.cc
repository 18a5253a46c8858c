#include "elementwise.h"

#include <cmath>
#include <string>

#include "device_buffer.h"
#include "gpu_errors.h"
#include "kernels/elementwise.h"

namespace switchyard {
namespace {

using kernels::ElementwiseOp;

bool ParseOp(const std::string& name, ElementwiseOp* op) {
  if (name == "Add") *op = ElementwiseOp::kAdd;
  else if (name == "Mul") *op = ElementwiseOp::kMul;
  else if (name == "Relu") *op = ElementwiseOp::kRelu;
  else return false;
  return true;
}

void CheckFits(Napi::Env env, const DeviceBuffer* buffer, size_t count, const char* what) {
  if (buffer->byte_length() / sizeof(float) < count) {
    ThrowJsRange(env, "INVALID_ARGUMENT", std::string("elementwise: ") + what + " holds " +
                                         std::to_string(buffer->byte_length() / sizeof(float)) + " floats, need " +
                                         std::to_string(count));
  }
}

}  // namespace

Napi::Value Elementwise(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 5 || !info[0].IsString() || !info[4].IsNumber()) {
    ThrowJs(env, "INVALID_ARGUMENT", "elementwise(op, a, b, out, count): op is a string, count a number", true);
  }
  ElementwiseOp op;
  const std::string name = info[0].As<Napi::String>().Utf8Value();
  if (!ParseOp(name, &op)) ThrowJs(env, "INVALID_ARGUMENT", "elementwise: unknown op '" + name + "' (Add, Mul, Relu)", true);
  const double requested = info[4].As<Napi::Number>().DoubleValue();
  if (!(requested >= 0) || requested != std::floor(requested) || requested > 9007199254740992.0) {
    ThrowJsRange(env, "INVALID_ARGUMENT", "elementwise: count must be a non-negative integer");
  }
  const size_t count = static_cast<size_t>(requested);

  const bool unary = op == ElementwiseOp::kRelu;
  DeviceBuffer* a = DeviceBuffer::FromValue(env, info[1], "a");
  DeviceBuffer* b = unary ? nullptr : DeviceBuffer::FromValue(env, info[2], "b");
  DeviceBuffer* out = DeviceBuffer::FromValue(env, info[3], "out");
  CheckFits(env, a, count, "a");
  if (b != nullptr) CheckFits(env, b, count, "b");
  CheckFits(env, out, count, "out");
  if ((b != nullptr && b->device_id() != a->device_id()) || out->device_id() != a->device_id()) {
    ThrowJs(env, "INVALID_ARGUMENT", "elementwise: operands live on different devices");
  }
  if (count == 0) return env.Undefined();

  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(a->device_id()));
  CheckGpu(env, "elementwise launch",
           kernels::LaunchElementwiseF32(op, static_cast<const float*>(a->data()),
                                         b != nullptr ? static_cast<const float*>(b->data()) : nullptr,
                                         static_cast<float*>(out->data()), count, nullptr));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipDeviceSynchronize), hipDeviceSynchronize());
  return env.Undefined();
}

void InitElementwise(Napi::Env env, Napi::Object exports) {
  exports.Set("elementwise", Napi::Function::New<Elementwise>(env, "elementwise"));
}

}  // namespace switchyard
