// switchyard_cpu.node: registers the addon's classes and functions; nothing else lives here.
#include <napi.h>

#include "conv_primitive.h"
#include "eltwise_function.h"
#include "engine.h"
#include "gemm_primitive.h"
#include "lstm_function.h"
#include "matmul_primitive.h"
#include "norm_function.h"
#include "pool_primitive.h"
#include "runtime_info.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  switchyard::DefaultThreads();  // capture OpenMP's default before any ThreadScope runs
  exports.Set("ConvPrimitive", switchyard::ConvPrimitive::Define(env));
  exports.Set("MatMulPrimitive", switchyard::MatMulPrimitive::Define(env));
  exports.Set("GemmPrimitive", switchyard::GemmPrimitive::Define(env));
  exports.Set("PoolPrimitive", switchyard::PoolPrimitive::Define(env));
  exports.Set("lstmForward", Napi::Function::New<switchyard::LstmForwardJs>(env, "lstmForward"));
  exports.Set("geluErf", Napi::Function::New<switchyard::GeluErfJs>(env, "geluErf"));
  exports.Set("softmaxRows", Napi::Function::New<switchyard::SoftmaxRowsJs>(env, "softmaxRows"));
  exports.Set("layerNormRows", Napi::Function::New<switchyard::LayerNormRowsJs>(env, "layerNormRows"));
  exports.Set("runtimeInfo", Napi::Function::New<switchyard::RuntimeInfo>(env, "runtimeInfo"));
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_cpu, Init)
