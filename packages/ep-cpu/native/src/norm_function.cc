#include "norm_function.h"

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine.h"
#include "parallel.h"
#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "primitive_lru.h"
#include "scratchpad.h"
#include "thread_count.h"
#include "vector_isa.h"

namespace switchyard {

namespace {

// The argument checks below build their error messages only on failure: a good call allocates no
// strings (each costs ~1 us, a visible share of a small normalization).

int64_t PositiveInt(const Napi::CallbackInfo& info, size_t index, const char* ctx, const char* name) {
  const Napi::Value v = info[index];
  const auto what = [&] { return std::string(ctx) + ": " + name; };
  if (!v.IsNumber()) ThrowJs(info.Env(), "INVALID_ARGUMENT", what() + " must be a number", true);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 1 && d <= 2147483647.0) || d != static_cast<double>(static_cast<int64_t>(d))) {
    ThrowJs(info.Env(), "INVALID_ARGUMENT", what() + " must be an integer in [1, 2^31-1]", true);
  }
  return static_cast<int64_t>(d);
}

// info[index] must be a Float32Array of `expected` elements.
Float32View Floats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name) {
  return ExpectFloat32ArrayLazy(info.Env(), info[index], expected, [&] { return std::string(ctx) + ": " + name; });
}

// Floats, or an empty view when info[index] is null or undefined.
Float32View OptionalFloats(const Napi::CallbackInfo& info, size_t index, int64_t expected, const char* ctx, const char* name) {
  return IsNullish(info[index]) ? Float32View{} : Floats(info, index, expected, ctx, name);
}

struct RowShape {
  int64_t rows;
  int64_t cols;
};

// info[index] and info[index + 1]: rows and cols of the [rows, cols] view, whose size must fit an int32.
RowShape ReadRowShape(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  const int64_t rows = PositiveInt(info, index, ctx, "rows"), cols = PositiveInt(info, index + 1, ctx, "cols");
  if (rows * cols > 2147483647LL) ThrowJs(info.Env(), "INVALID_ARGUMENT", std::string(ctx) + ": rows × cols exceeds 2^31-1", true);
  return {rows, cols};
}

float ReadEpsilon(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  if (!info[index].IsNumber()) ThrowJs(info.Env(), "INVALID_ARGUMENT", std::string(ctx) + ": epsilon must be a number", true);
  const float epsilon = static_cast<float>(info[index].As<Napi::Number>().DoubleValue());
  if (!(epsilon >= 0)) ThrowJs(info.Env(), "INVALID_ARGUMENT", std::string(ctx) + ": epsilon must be >= 0", true);
  return epsilon;
}

int Threads(const Napi::CallbackInfo& info, size_t index, const char* ctx) {
  return ThreadsArgument(info[index], ctx);
}

// Everything a cached primitive was built for. `threads` is the team size in effect (inside the
// ThreadScope), since oneDNN splits the work for the team it sees at creation.
struct RowsKey {
  int64_t rows;
  int64_t cols;
  int threads;
  float epsilon;  // layer normalization only; 0 otherwise (the residual add)
  bool shift;     // layer normalization with a bias
  bool operator==(const RowsKey& o) const {
    return rows == o.rows && cols == o.cols && threads == o.threads && epsilon == o.epsilon && shift == o.shift;
  }
};

// A few shapes per function cover a model (one per LayerNorm shape it has).
constexpr size_t kCacheEntries = 8;

dnnl::memory::desc MatrixDesc(const RowsKey& key) {
  return dnnl::memory::desc({key.rows, key.cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
}

dnnl::memory::desc VectorDesc(const RowsKey& key) {
  return dnnl::memory::desc({key.cols}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
}

RowsKey KeyFor(RowShape shape, float epsilon = 0, bool shift = false) {
  return {shape.rows, shape.cols, omp_get_max_threads(), epsilon, shift};
}

const BuiltPrimitive& LayerNorm(const RowsKey& key) {
  thread_local PrimitiveLru<RowsKey> cache(kCacheEntries);
  return cache.Get(key, [&] {
    auto flags = dnnl::normalization_flags::use_scale;
    if (key.shift) flags = flags | dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, MatrixDesc(key), key.epsilon, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
    return BuiltPrimitive{dnnl::layer_normalization_forward(pd), pd.scratchpad_desc()};
  });
}

const BuiltPrimitive& Add(const RowsKey& key) {
  thread_local PrimitiveLru<RowsKey> cache(kCacheEntries);
  return cache.Get(key, [&] {
    const dnnl::memory::desc md = MatrixDesc(key);
    dnnl::binary::desc desc(dnnl::algorithm::binary_add, md, md, md);
    dnnl::binary::primitive_desc pd(desc, UserScratchpadAttr(), CpuEngine());
    return BuiltPrimitive{dnnl::binary(pd), pd.scratchpad_desc()};
  });
}

void Run(const BuiltPrimitive& built, std::unordered_map<int, dnnl::memory> args) {
  auto stream = NewStream();
  ExecuteWithScratchpad(built.primitive, stream, std::move(args), built.scratchpad);
  stream.wait();
}

// y = layer normalization of x's rows (x may be y), with the cached primitive for `key`.
void RunLayerNorm(const RowsKey& key, float* x, const Float32View& scale, const Float32View& bias, float* y) {
  const auto& engine = CpuEngine();
  const dnnl::memory::desc md = MatrixDesc(key), vec = VectorDesc(key);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(md, engine, x)},
                                                {DNNL_ARG_DST, dnnl::memory(md, engine, y)},
                                                {DNNL_ARG_SCALE, dnnl::memory(vec, engine, scale.data)}};
  if (bias.data) args.emplace(DNNL_ARG_SHIFT, dnnl::memory(vec, engine, bias.data));
  Run(LayerNorm(key), std::move(args));
}

}  // namespace

Napi::Value LayerNormRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "layerNormRows";
  const RowShape shape = ReadRowShape(info, 4, ctx);
  const int64_t n = shape.rows * shape.cols;
  Float32View x = Floats(info, 0, n, ctx, "x");
  Float32View scale = Floats(info, 1, shape.cols, ctx, "scale");
  Float32View bias = OptionalFloats(info, 2, shape.cols, ctx, "bias");
  Float32View y = Floats(info, 3, n, ctx, "y");
  const float epsilon = ReadEpsilon(info, 6, ctx);
  const int threads = Threads(info, 7, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(TeamForBytes(threads, n * 2 * static_cast<int64_t>(sizeof(float))));  // reads x, writes y
    RunLayerNorm(KeyFor(shape, epsilon, bias.data != nullptr), x.data, scale, bias, y.data);
  });
  return env.Undefined();
}

Napi::Value SkipLayerNormRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "skipLayerNormRows";
  const RowShape shape = ReadRowShape(info, 6, ctx);
  const int64_t n = shape.rows * shape.cols;
  Float32View a = Floats(info, 0, n, ctx, "a");
  Float32View b = Floats(info, 1, n, ctx, "b");
  Float32View scale = Floats(info, 2, shape.cols, ctx, "scale");
  Float32View bias = OptionalFloats(info, 3, shape.cols, ctx, "bias");
  Float32View y = Floats(info, 4, n, ctx, "y");
  Float32View sum = OptionalFloats(info, 5, n, ctx, "sum");
  const float epsilon = ReadEpsilon(info, 8, ctx);
  const int threads = Threads(info, 9, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(TeamForBytes(threads, n * 3 * static_cast<int64_t>(sizeof(float))));  // the add: reads a and b, writes s
    const auto& engine = CpuEngine();
    const RowsKey addKey = KeyFor(shape);
    const dnnl::memory::desc md = MatrixDesc(addKey);
    float* s = sum.data ? sum.data : y.data;
    // The residual add as oneDNN's vectorized binary primitive; then layer normalization of s into y
    // (in place when s is y, which oneDNN's forward normalization allows).
    Run(Add(addKey),
        {{DNNL_ARG_SRC_0, dnnl::memory(md, engine, a.data)}, {DNNL_ARG_SRC_1, dnnl::memory(md, engine, b.data)}, {DNNL_ARG_DST, dnnl::memory(md, engine, s)}});
    RunLayerNorm(KeyFor(shape, epsilon, bias.data != nullptr), s, scale, bias, y.data);
  });
  return env.Undefined();
}

Napi::Value RmsNormRowsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* ctx = "rmsNormRows";
  const RowShape shape = ReadRowShape(info, 3, ctx);
  const int64_t n = shape.rows * shape.cols;
  Float32View x = Floats(info, 0, n, ctx, "x");
  Float32View scale = Floats(info, 1, shape.cols, ctx, "scale");
  Float32View y = Floats(info, 2, n, ctx, "y");
  const float epsilon = ReadEpsilon(info, 5, ctx);
  const int threads = Threads(info, 6, ctx);
  GuardSync(env, ctx, [&] {
    ThreadScope scope(TeamForBytes(threads, n * 2 * static_cast<int64_t>(sizeof(float))));  // reads x, writes y
    const vec::Loops& loops = VectorLoops();
    const int64_t cols = shape.cols;
    ParallelRanges(shape.rows, GrainFor(cols * 2 * static_cast<int64_t>(sizeof(float))), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; r++) {
        const float* xr = x.data + r * cols;
        const double meanSquare = loops.reduceRow(vec::ReduceOp::kSumSquare, xr, cols, 0.0, 0.0f) / static_cast<double>(cols);
        const float inv = static_cast<float>(1.0 / __builtin_sqrt(meanSquare + static_cast<double>(epsilon)));
        loops.normalizeScaled(xr, y.data + r * cols, cols, 0.0f, inv, scale.data, nullptr);  // x · inv · scale (in place is fine)
      }
    });
  });
  return env.Undefined();
}

}  // namespace switchyard
