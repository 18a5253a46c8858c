#include "eltwise_function.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "scratchpad.h"

namespace switchyard {

Napi::Value GeluErfJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "geluErf";
  if (!info[0].IsTypedArray()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": x must be a Float32Array", true);
  const int64_t n = static_cast<int64_t>(info[0].As<Napi::TypedArray>().ElementLength());
  Float32View x = ExpectFloat32Array(env, info[0], n, ctx + ": x");
  Float32View y = ExpectFloat32Array(env, info[1], n, ctx + ": y (shaped like x)");
  int threads = 0;
  if (!IsNullish(info[2])) {
    if (!info[2].IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": threads must be a number", true);
    threads = info[2].As<Napi::Number>().Int32Value();
  }
  if (n == 0) return env.Undefined();
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    // oneDNN's own primitive cache makes the per-call construction a lookup after the first call.
    const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_gelu_erf, md, 0.0f, 0.0f);
    dnnl::eltwise_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
    auto stream = NewStream();
    ExecuteWithScratchpad(dnnl::eltwise_forward(pd), stream,
                          {{DNNL_ARG_SRC, dnnl::memory(md, CpuEngine(), x.data)}, {DNNL_ARG_DST, dnnl::memory(md, CpuEngine(), y.data)}},
                          pd.scratchpad_desc());
    stream.wait();
  });
  return env.Undefined();
}

}  // namespace switchyard
