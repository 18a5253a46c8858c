#include "eltwise_function.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <utility>

#include "engine.h"
#include "parallel.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "primitive_lru.h"
#include "scratchpad.h"
#include "thread_count.h"

namespace switchyard {

namespace {

// A model applies GELU at a few lengths (BERT-base: one), so a few entries catch every call.
constexpr size_t kCacheEntries = 4;

}  // namespace

Napi::Value GeluErfJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "geluErf";
  if (!info[0].IsTypedArray()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": x must be a Float32Array", true);
  const int64_t n = static_cast<int64_t>(info[0].As<Napi::TypedArray>().ElementLength());
  Float32View x = ExpectFloat32Array(env, info[0], n, ctx + ": x");
  Float32View y = ExpectFloat32Array(env, info[1], n, ctx + ": y (shaped like x)");
  const int threads = ThreadsArgument(info[2], ctx);
  if (n == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    // erf is ~1 ns an element: a thread per 32K elements (the elementwise engine's split), not the whole team.
    constexpr int64_t kElementsPerThread = 32 * 1024;
    ThreadScope scope(TeamFor(threads, n, kElementsPerThread));
    const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    // The built primitive per (length, team size), as the norm functions keep theirs (primitive_lru.h):
    // building the descriptor costs more than a small GELU, even when oneDNN's own cache hits.
    thread_local PrimitiveLru<std::pair<int64_t, int>> cache(kCacheEntries);
    const BuiltPrimitive& built = cache.Get({n, omp_get_max_threads()}, [&] {
      dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_gelu_erf, md, 0.0f, 0.0f);
      dnnl::eltwise_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
      return BuiltPrimitive{dnnl::eltwise_forward(pd), pd.scratchpad_desc()};
    });
    auto stream = NewStream();
    ExecuteWithScratchpad(built.primitive, stream,
                          {{DNNL_ARG_SRC, dnnl::memory(md, CpuEngine(), x.data)}, {DNNL_ARG_DST, dnnl::memory(md, CpuEngine(), y.data)}},
                          built.scratchpad);
    stream.wait();
  });
  return env.Undefined();
}

}  // namespace switchyard
