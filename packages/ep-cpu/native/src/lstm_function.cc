#include "lstm_function.h"

#include <switchyard/errors.h>
#include <switchyard/js_args.h>
#include "lstm_kernel.h"
#include "thread_count.h"

namespace switchyard {

namespace {

// A Float32Array of `expected` elements, or nullptr for null/undefined when `optional`.
float* Buffer(const Napi::CallbackInfo& info, size_t index, int64_t expected, bool optional, const std::string& what) {
  if (optional && IsNullish(info[index])) return nullptr;
  return ExpectFloat32Array(info.Env(), info[index], expected, what).data;
}

// The options object, checked. `withRun`: seq and batch are required (the forward calls).
LstmParams ReadParams(const Napi::CallbackInfo& info, const std::string& ctx, bool withRun) {
  Napi::Env env = info.Env();
  Napi::Object options = ExpectObject(env, info[0], ctx + ": argument 1");
  LstmParams p;
  p.seq = withRun ? ReadInt(env, options, "seq", ctx, 0) : 1;
  p.batch = withRun ? ReadInt(env, options, "batch", ctx, 0) : 1;
  p.input = ReadInt(env, options, "input", ctx, 0);
  p.hidden = ReadInt(env, options, "hidden", ctx, 0);
  const std::string direction = ReadString(env, options, "direction", ctx, "forward");
  p.clip = static_cast<float>(ReadNumber(env, options, "clip", ctx, 0.0));
  p.threads = ThreadsOption(env, options, ctx);
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": direction must be 'forward', 'reverse' or 'bidirectional', got '" + direction + "'", true);
  }
  if (p.seq < 1 || p.batch < 1 || p.input < 1 || p.hidden < 1) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": seq, batch, input and hidden must be >= 1", true);
  if (!(p.clip >= 0)) ThrowJs(env, "INVALID_ARGUMENT", ctx + ": clip must be >= 0 (0 = none)", true);
  p.dirs = direction == "bidirectional" ? 2 : 1;
  p.reverse = direction == "reverse";
  // In double: each size is a safe integer (< 2^53), so their products cannot overflow there as they would in
  // int64 (options of 2^31 each overflowed this very check); past 2^53 they round but stay above the limit.
  const double D = p.dirs, T = static_cast<double>(p.seq), N = static_cast<double>(p.batch), I = static_cast<double>(p.input),
               H = static_cast<double>(p.hidden), Hp = H + kLstmBlockUnits;
  const double limit = static_cast<double>((int64_t{1} << 31) - 1);
  if (T * N * I > limit || D * 4 * Hp * (I + Hp + 1) > limit || T * N * 4 * Hp > limit || T * D * N * H > limit) {
    ThrowJs(env, "INVALID_ARGUMENT", ctx + ": sizes exceed 2^31-1 elements", true);
  }
  return p;
}

}  // namespace

Napi::Value LstmForwardJs(const Napi::CallbackInfo& info) {
  const std::string ctx = "lstmForward";
  const LstmParams p = ReadParams(info, ctx, true);
  const int64_t D = p.dirs, T = p.seq, N = p.batch, I = p.input, H = p.hidden;
  const float* x = Buffer(info, 1, T * N * I, false, ctx + ": x");
  const float* w = Buffer(info, 2, D * 4 * H * I, false, ctx + ": w");
  const float* r = Buffer(info, 3, D * 4 * H * H, false, ctx + ": r");
  const float* b = Buffer(info, 4, D * 8 * H, true, ctx + ": b");
  const float* h0 = Buffer(info, 5, D * N * H, true, ctx + ": h0");
  const float* c0 = Buffer(info, 6, D * N * H, true, ctx + ": c0");
  float* y = Buffer(info, 7, T * D * N * H, true, ctx + ": y");
  float* yh = Buffer(info, 8, D * N * H, true, ctx + ": yh");
  float* yc = Buffer(info, 9, D * N * H, true, ctx + ": yc");
  GuardSync(info.Env(), ctx, [&] { LstmForward(p, x, w, r, b, h0, c0, y, yh, yc); });
  return info.Env().Undefined();
}

Napi::Value LstmPackJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string ctx = "lstmPack";
  const LstmParams p = ReadParams(info, ctx, false);
  const int64_t D = p.dirs, I = p.input, H = p.hidden;
  const float* w = Buffer(info, 1, D * 4 * H * I, false, ctx + ": w");
  const float* r = Buffer(info, 2, D * 4 * H * H, false, ctx + ": r");
  const float* b = Buffer(info, 3, D * 8 * H, true, ctx + ": b");
  Napi::Float32Array packed = Napi::Float32Array::New(env, static_cast<size_t>(LstmPackedSize(p)));
  LstmPack(p, w, r, b, packed.Data());
  return packed;
}

Napi::Value LstmForwardPackedJs(const Napi::CallbackInfo& info) {
  const std::string ctx = "lstmForwardPacked";
  const LstmParams p = ReadParams(info, ctx, true);
  const int64_t D = p.dirs, T = p.seq, N = p.batch, I = p.input, H = p.hidden;
  const float* x = Buffer(info, 1, T * N * I, false, ctx + ": x");
  const float* packed = Buffer(info, 2, LstmPackedSize(p), false, ctx + ": packed weights");
  const float* h0 = Buffer(info, 3, D * N * H, true, ctx + ": h0");
  const float* c0 = Buffer(info, 4, D * N * H, true, ctx + ": c0");
  float* y = Buffer(info, 5, T * D * N * H, true, ctx + ": y");
  float* yh = Buffer(info, 6, D * N * H, true, ctx + ": yh");
  float* yc = Buffer(info, 7, D * N * H, true, ctx + ": yc");
  GuardSync(info.Env(), ctx, [&] { LstmForwardPacked(p, x, packed, h0, c0, y, yh, yc); });
  return info.Env().Undefined();
}

}  // namespace switchyard
