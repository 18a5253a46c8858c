// switchyard_cpu.node: registers the addon's classes and functions; nothing else lives here.
#include <napi.h>

#include "conv_primitive.h"
#include "engine.h"
#include "gemm_primitive.h"
#include "matmul_primitive.h"
#include "pool_primitive.h"
#include "runtime_info.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  switchyard::DefaultThreads();  // capture OpenMP's default before any ThreadScope runs
  exports.Set("ConvPrimitive", switchyard::ConvPrimitive::Define(env));
  exports.Set("MatMulPrimitive", switchyard::MatMulPrimitive::Define(env));
  exports.Set("GemmPrimitive", switchyard::GemmPrimitive::Define(env));
  exports.Set("PoolPrimitive", switchyard::PoolPrimitive::Define(env));
  exports.Set("runtimeInfo", Napi::Function::New<switchyard::RuntimeInfo>(env, "runtimeInfo"));
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_cpu, Init)
