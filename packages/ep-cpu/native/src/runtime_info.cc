#include "runtime_info.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

#include "engine.h"

namespace switchyard {

namespace {

const char* ThreadingRuntimeName() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  return "omp";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
  return "tbb";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
  return "seq";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_THREADPOOL
  return "threadpool";
#else
  return "unknown";
#endif
}

const char* IsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    default: return "other";
  }
}

}  // namespace

Napi::Value RuntimeInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const dnnl_version_t* v = dnnl::version();
  Napi::Object out = Napi::Object::New(env);
  out.Set("onednnVersion", std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch));
  out.Set("threadingRuntime", ThreadingRuntimeName());
  out.Set("defaultThreads", DefaultThreads());
  out.Set("cpuIsa", IsaName(dnnl::get_effective_cpu_isa()));
  return out;
}

}  // namespace switchyard
