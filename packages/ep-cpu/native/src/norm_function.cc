#include "norm_function.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "engine.h"
#include "errors.h"
#include "js_args.h"
#include "scratchpad.h"

namespace switchyard {

namespace {

int64_t PositiveInt(const Napi::CallbackInfo& info, size_t index, const std::string& what) {
  const Napi::Value v = info[index];
  if (!v.IsNumber()) ThrowJs(info.Env(), "INVALID_ARGUMENT", what + " must be a number", true);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 1 && d <= 2147483647.0) || d != static_cast<double>(static_cast<int64_t>(d))) {
    ThrowJs(info.Env(), "INVALID_ARGUMENT", what + " must be an integer in [1, 2^31-1]", true);
  }
  return static_cast<int64_t>(d);
}

int Threads(const Napi::CallbackInfo& info, size_t index, const std::string& ctx) {
  if (IsNullish(info[index])) return 0;
  if (!info[index].IsNumber()) ThrowJs(info.Env(), "INVALID_ARGUMENT", ctx + ": threads must be a number", true);
  return info[index].As<Napi::Number>().Int32Value();
}

void Run(const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad) {
  auto stream = NewStream();
  ExecuteWithScratchpad(primitive, stream, std::move(args), scratchpad);
  stream.wait();
}

}  // namespace

Napi::Value SoftmaxRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "softmaxRows";
  const int64_t rows = PositiveInt(info, 2, ctx + ": rows"), cols = PositiveInt(info, 3, ctx + ": cols");
  if (rows * cols > 2147483647LL) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": rows × cols exceeds 2^31-1", true);
  Float32View x = ExpectFloat32Array(env, info[0], rows * cols, ctx + ": x");
  Float32View y = ExpectFloat32Array(env, info[1], rows * cols, ctx + ": y");
  const int threads = Threads(info, 4, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    // Constructed per call: oneDNN's primitive cache turns repeats into a lookup.
    const dnnl::memory::desc md({rows, cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1);
    dnnl::softmax_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
    Run(dnnl::softmax_forward(pd),
        {{DNNL_ARG_SRC, dnnl::memory(md, CpuEngine(), x.data)}, {DNNL_ARG_DST, dnnl::memory(md, CpuEngine(), y.data)}},
        pd.scratchpad_desc());
  });
  return env.Undefined();
}

Napi::Value LayerNormRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "layerNormRows";
  const int64_t rows = PositiveInt(info, 4, ctx + ": rows"), cols = PositiveInt(info, 5, ctx + ": cols");
  if (rows * cols > 2147483647LL) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": rows × cols exceeds 2^31-1", true);
  Float32View x = ExpectFloat32Array(env, info[0], rows * cols, ctx + ": x");
  Float32View scale = ExpectFloat32Array(env, info[1], cols, ctx + ": scale");
  Float32View bias;
  if (!IsNullish(info[2])) bias = ExpectFloat32Array(env, info[2], cols, ctx + ": bias");
  Float32View y = ExpectFloat32Array(env, info[3], rows * cols, ctx + ": y");
  if (!info[6].IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": epsilon must be a number", true);
  const float epsilon = static_cast<float>(info[6].As<Napi::Number>().DoubleValue());
  if (!(epsilon >= 0)) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": epsilon must be >= 0", true);
  const int threads = Threads(info, 7, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const dnnl::memory::desc md({rows, cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    const dnnl::memory::desc vec({cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    auto flags = dnnl::normalization_flags::use_scale;
    if (bias.data) flags = flags | dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, epsilon, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(md, CpuEngine(), x.data)},
                                                  {DNNL_ARG_DST, dnnl::memory(md, CpuEngine(), y.data)},
                                                  {DNNL_ARG_SCALE, dnnl::memory(vec, CpuEngine(), scale.data)}};
    if (bias.data) args.emplace(DNNL_ARG_SHIFT, dnnl::memory(vec, CpuEngine(), bias.data));
    Run(dnnl::layer_normalization_forward(pd), std::move(args), pd.scratchpad_desc());
  });
  return env.Undefined();
}

Napi::Value SkipLayerNormRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "skipLayerNormRows";
  const int64_t rows = PositiveInt(info, 6, ctx + ": rows"), cols = PositiveInt(info, 7, ctx + ": cols");
  if (rows * cols > 2147483647LL) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": rows × cols exceeds 2^31-1", true);
  Float32View a = ExpectFloat32Array(env, info[0], rows * cols, ctx + ": a");
  Float32View b = ExpectFloat32Array(env, info[1], rows * cols, ctx + ": b");
  Float32View scale = ExpectFloat32Array(env, info[2], cols, ctx + ": scale");
  Float32View bias;
  if (!IsNullish(info[3])) bias = ExpectFloat32Array(env, info[3], cols, ctx + ": bias");
  Float32View y = ExpectFloat32Array(env, info[4], rows * cols, ctx + ": y");
  Float32View sum;
  if (!IsNullish(info[5])) sum = ExpectFloat32Array(env, info[5], rows * cols, ctx + ": sum");
  if (!info[8].IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": epsilon must be a number", true);
  const float epsilon = static_cast<float>(info[8].As<Napi::Number>().DoubleValue());
  if (!(epsilon >= 0)) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": epsilon must be >= 0", true);
  const int threads = Threads(info, 9, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(threads);
    const auto& engine = CpuEngine();
    const dnnl::memory::desc md({rows, cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    const dnnl::memory::desc vec({cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    float* s = sum.data ? sum.data : y.data;
    // The residual add as oneDNN's vectorized binary primitive; then layer normalization of s into y
    // (in place when s is y, which oneDNN's forward normalization allows).
    dnnl::binary::desc addDesc(dnnl::algorithm::binary_add, md, md, md);
    dnnl::binary::primitive_desc addPd(addDesc, UserScratchpadAttr(), engine);
    Run(dnnl::binary(addPd),
        {{DNNL_ARG_SRC_0, dnnl::memory(md, engine, a.data)}, {DNNL_ARG_SRC_1, dnnl::memory(md, engine, b.data)}, {DNNL_ARG_DST, dnnl::memory(md, engine, s)}},
        addPd.scratchpad_desc());
    auto flags = dnnl::normalization_flags::use_scale;
    if (bias.data) flags = flags | dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, epsilon, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, UserScratchpadAttr(), engine);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(md, engine, s)},
                                                  {DNNL_ARG_DST, dnnl::memory(md, engine, y.data)},
                                                  {DNNL_ARG_SCALE, dnnl::memory(vec, engine, scale.data)}};
    if (bias.data) args.emplace(DNNL_ARG_SHIFT, dnnl::memory(vec, engine, bias.data));
    Run(dnnl::layer_normalization_forward(pd), std::move(args), pd.scratchpad_desc());
  });
  return env.Undefined();
}

}  // namespace switchyard
