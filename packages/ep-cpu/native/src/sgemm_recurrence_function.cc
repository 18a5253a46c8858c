#include "sgemm_recurrence_function.h"

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "sgemm_recurrence.h"
#include "thread_count.h"

namespace switchyard {

namespace {

float* Buffer(const Napi::CallbackInfo& info, size_t index, int64_t expected, bool optional, const std::string& what) {
  if (optional && IsNullish(info[index])) return nullptr;
  return ExpectFloat32Array(info.Env(), info[index], expected, what).data;
}

// The options both functions share, checked; `gates` is 3 for the GRU, 1 for the RNN.
RecurrenceParams ReadParams(const Napi::CallbackInfo& info, const std::string& ctx, int gates) {
  Napi::Env env = info.Env();
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  RecurrenceParams p;
  p.seq = ReadInt(env, options, "seq", ctx, 0);
  p.batch = ReadInt(env, options, "batch", ctx, 0);
  p.input = ReadInt(env, options, "input", ctx, 0);
  p.hidden = ReadInt(env, options, "hidden", ctx, 0);
  const std::string direction = ReadString(env, options, "direction", ctx, "forward");
  p.linearBeforeReset = ReadNumber(env, options, "linearBeforeReset", ctx, 0.0) != 0.0;
  p.threads = ThreadsOption(env, options, ctx);
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": direction must be 'forward', 'reverse' or 'bidirectional', got '" + direction + "'", true);
  }
  if (p.seq < 1 || p.batch < 1 || p.input < 1 || p.hidden < 1) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": seq, batch, input and hidden must be >= 1", true);
  p.dirs = direction == "bidirectional" ? 2 : 1;
  p.reverse = direction == "reverse";
  // In double, so products of absurd sizes cannot overflow before the check.
  const double D = p.dirs, T = static_cast<double>(p.seq), N = static_cast<double>(p.batch), I = static_cast<double>(p.input),
               H = static_cast<double>(p.hidden);
  const double limit = static_cast<double>((int64_t{1} << 31) - 1);
  if (T * N * I > limit || D * gates * H * (I + H + 2) > limit || T * N * gates * H > limit || T * D * N * H > limit) {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": sizes exceed 2^31-1 elements", true);
  }
  return p;
}

}  // namespace

Napi::Value GruForwardJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "gruForward";
  const RecurrenceParams p = ReadParams(info, ctx, 3);
  const int64_t Dd = p.dirs, Tt = p.seq, Nn = p.batch, Ii = p.input, Hh = p.hidden;
  const float* x = Buffer(info, 1, Tt * Nn * Ii, false, ctx + ": x");
  const float* w = Buffer(info, 2, Dd * 3 * Hh * Ii, false, ctx + ": w");
  const float* r = Buffer(info, 3, Dd * 3 * Hh * Hh, false, ctx + ": r");
  const float* b = Buffer(info, 4, Dd * 6 * Hh, true, ctx + ": b");
  const float* h0 = Buffer(info, 5, Dd * Nn * Hh, true, ctx + ": h0");
  float* y = Buffer(info, 6, Tt * Dd * Nn * Hh, true, ctx + ": y");
  float* yh = Buffer(info, 7, Dd * Nn * Hh, true, ctx + ": yh");
  GuardSync(env, ctx, [&] { GruForward(p, x, w, r, b, h0, y, yh); });
  return env.Undefined();
}

Napi::Value RnnForwardJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "rnnForward";
  const RecurrenceParams p = ReadParams(info, ctx, 1);
  const std::string name = ReadString(env, info[0].As<Napi::Object>(), "activation", ctx, "tanh");
  RnnActivation activation = RnnActivation::kTanh;
  if (name == "relu") {
    activation = RnnActivation::kRelu;
  } else if (name == "sigmoid") {
    activation = RnnActivation::kSigmoid;
  } else if (name != "tanh") {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": activation must be 'tanh', 'relu' or 'sigmoid', got '" + name + "'", true);
  }
  const int64_t Dd = p.dirs, Tt = p.seq, Nn = p.batch, Ii = p.input, Hh = p.hidden;
  const float* x = Buffer(info, 1, Tt * Nn * Ii, false, ctx + ": x");
  const float* w = Buffer(info, 2, Dd * Hh * Ii, false, ctx + ": w");
  const float* r = Buffer(info, 3, Dd * Hh * Hh, false, ctx + ": r");
  const float* b = Buffer(info, 4, Dd * 2 * Hh, true, ctx + ": b");
  const float* h0 = Buffer(info, 5, Dd * Nn * Hh, true, ctx + ": h0");
  float* y = Buffer(info, 6, Tt * Dd * Nn * Hh, true, ctx + ": y");
  float* yh = Buffer(info, 7, Dd * Nn * Hh, true, ctx + ": yh");
  GuardSync(env, ctx, [&] { RnnForward(p, activation, x, w, r, b, h0, y, yh); });
  return env.Undefined();
}

}  // namespace switchyard
