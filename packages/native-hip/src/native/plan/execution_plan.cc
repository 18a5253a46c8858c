#include "plan/execution_plan.h"

#include <cmath>
#include <cstdlib>

#include "device_buffer.h"
#include "gpu_errors.h"
#include "plan/host_bytes.h"
#include "blas/blas.h"
#include "dnn/dnn.h"
#include "runtime/runtime.h"

namespace switchyard::plan {
namespace {

double NumberAt(Napi::Env env, const Napi::Object& o, const char* key, const std::string& where) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + "." + key + " must be a number", true);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0) || d != std::floor(d) || d > 281474976710656.0) {
    ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + "." + key + " must be a non-negative integer below 2^48");
  }
  return d;
}

Napi::Array ArrayAt(Napi::Env env, const Napi::Object& o, const char* key, const std::string& where) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + "." + key + " must be an array", true);
  return v.As<Napi::Array>();
}

}  // namespace

Napi::Function ExecutionPlan::Define(Napi::Env env) {
  return DefineClass(env, "ExecutionPlan",
                     {
                         InstanceMethod<&ExecutionPlan::Run>("run"),
                         InstanceMethod<&ExecutionPlan::Start>("start"),
                         InstanceMethod<&ExecutionPlan::Poll>("poll"),
                         InstanceMethod<&ExecutionPlan::Dispose>("dispose"),
                         InstanceAccessor<&ExecutionPlan::GetArenaBytes>("arenaBytes"),
                         InstanceAccessor<&ExecutionPlan::GetStepCount>("stepCount"),
                         InstanceAccessor<&ExecutionPlan::GetGraphCaptured>("graphCaptured"),
                         InstanceAccessor<&ExecutionPlan::GetGraphNote>("graphNote"),
                         InstanceAccessor<&ExecutionPlan::GetRuns>("runs"),
                         InstanceAccessor<&ExecutionPlan::GetLastGpuMs>("lastGpuMs"),
                         InstanceAccessor<&ExecutionPlan::GetLastHostLaunchMs>("lastHostLaunchMs"),
                         InstanceAccessor<&ExecutionPlan::GetLastCopyMs>("lastCopyMs"),
                         InstanceAccessor<&ExecutionPlan::GetLastRunPhasesMs>("lastRunPhasesMs"),
                         InstanceAccessor<&ExecutionPlan::GetLastStepMs>("lastStepMs"),
                         InstanceAccessor<&ExecutionPlan::GetStepNotes>("stepNotes"),
                     });
}

ExecutionPlan::ExecutionPlan(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ExecutionPlan>(info) {
  Napi::Env env = info.Env();
  TagInstance(env, info.This(), ClassTag(kClass));
  if (info.Length() < 1 || !info[0].IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "new ExecutionPlan(description): description must be an object", true);
  try {
    Parse(env, info[0].As<Napi::Object>());
  } catch (...) {
    Release();
    throw;
  }
}

ExecutionPlan::~ExecutionPlan() { Release(); }

void ExecutionPlan::Parse(Napi::Env env, const Napi::Object& d) {
  device_id_ = static_cast<int>(NumberAt(env, d, "deviceId", "description"));
  arena_bytes_ = static_cast<size_t>(NumberAt(env, d, "arenaBytes", "description"));
  capture_graph_ = d.Get("captureGraph").ToBoolean().Value();
  // Optional: 0 library defaults, 1 cached choices only, 2 time what the cache lacks (the default).
  StepArgs::Tuning tuning = StepArgs::Tuning::kTune;
  if (Napi::Value t = d.Get("tuning"); !t.IsUndefined()) {
    const double v = t.IsNumber() ? t.As<Napi::Number>().DoubleValue() : -1;
    if (v != 0 && v != 1 && v != 2) ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: description.tuning must be 0, 1 or 2");
    tuning = static_cast<StepArgs::Tuning>(static_cast<int>(v));
  }

  Napi::Array buffers = ArrayAt(env, d, "buffers", "description");
  for (uint32_t i = 0; i < buffers.Length(); ++i) {
    const std::string where = "buffers[" + std::to_string(i) + "]";
    if (!buffers.Get(i).IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " must be an object", true);
    Napi::Object b = buffers.Get(i).As<Napi::Object>();
    TensorRef t;
    const size_t offset = static_cast<size_t>(NumberAt(env, b, "offset", where));
    t.bytes = static_cast<size_t>(NumberAt(env, b, "bytes", where));
    t.dtype = static_cast<int>(NumberAt(env, b, "dtype", where));
    if (DTypeSize(t.dtype) == 0) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".dtype " + std::to_string(t.dtype) + " is not a type the plan holds", true);
    Napi::Array dims = ArrayAt(env, b, "dims", where);
    // Checked in double, before any integer product: a dim past 2^48 or NaN would overflow the element count.
    double needed = DTypeSize(t.dtype);
    for (uint32_t k = 0; k < dims.Length(); ++k) {
      Napi::Value v = dims.Get(k);
      const double dim = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
      if (!(dim >= 0) || dim != std::floor(dim) || dim > 281474976710656.0) {
        ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".dims must be non-negative integers below 2^48", true);
      }
      t.dims.push_back(static_cast<int64_t>(dim));
      needed *= dim;
    }
    if (needed != static_cast<double>(t.bytes)) {
      ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " has " + std::to_string(t.bytes) + " bytes, its dims and dtype need " +
                                           std::to_string(needed));
    }
    if (offset + t.bytes > arena_bytes_) ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " ends past arenaBytes");
    t.data = reinterpret_cast<void*>(offset);  // rebased onto the arena below
    buffers_.push_back(t);
  }

  auto buffer_id = [&](const Napi::Value& v, const std::string& where, bool allow_omitted) -> int {
    if (!v.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " must be a buffer id", true);
    const double id = v.As<Napi::Number>().DoubleValue();
    if (allow_omitted && id == -1) return -1;
    if (!(id >= 0) || id != std::floor(id) || id >= static_cast<double>(buffers_.size())) {
      ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " = " + std::to_string(id) + " is not a buffer id");
    }
    return static_cast<int>(id);
  };
  Napi::Array inputs = ArrayAt(env, d, "inputs", "description");
  for (uint32_t i = 0; i < inputs.Length(); ++i) inputs_.push_back(buffer_id(inputs.Get(i), "inputs[" + std::to_string(i) + "]", false));
  Napi::Array outputs = ArrayAt(env, d, "outputs", "description");
  for (uint32_t i = 0; i < outputs.Length(); ++i) outputs_.push_back(buffer_id(outputs.Get(i), "outputs[" + std::to_string(i) + "]", false));

  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device_id_));
  if (arena_bytes_ > 0) CheckGpu(env, SWITCHYARD_GPU_NAME(hipMalloc), hipMalloc(&arena_, arena_bytes_));
  for (TensorRef& t : buffers_) t.data = static_cast<uint8_t*>(arena_) + reinterpret_cast<size_t>(t.data);
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamCreateWithFlags), runtime::AcquirePlanStream(device_id_, &stream_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&steps_begin_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&steps_end_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&run_begin_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&run_end_));

  Napi::Array constants = ArrayAt(env, d, "constants", "description");
  for (uint32_t i = 0; i < constants.Length(); ++i) {
    const std::string where = "constants[" + std::to_string(i) + "]";
    if (!constants.Get(i).IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " must be an object", true);
    Napi::Object c = constants.Get(i).As<Napi::Object>();
    const int id = buffer_id(c.Get("buffer"), where + ".buffer", false);
    HostBytes host;
    if (!HostBytesOf(c.Get("data"), &host)) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".data must be a TypedArray", true);
    if (host.bytes != buffers_[id].bytes) {
      ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " has " + std::to_string(host.bytes) + " bytes for a buffer of " + std::to_string(buffers_[id].bytes));
    }
    if (host.bytes > 0) CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy), hipMemcpy(buffers_[id].data, host.data, host.bytes, hipMemcpyHostToDevice));
  }

  hipDeviceProp_t props;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipGetDeviceProperties), hipGetDeviceProperties(&props, device_id_));

  Napi::Array steps = ArrayAt(env, d, "steps", "description");
  for (uint32_t i = 0; i < steps.Length(); ++i) {
    const std::string where = "steps[" + std::to_string(i) + "]";
    if (!steps.Get(i).IsObject()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " must be an object", true);
    Napi::Object s = steps.Get(i).As<Napi::Object>();
    Napi::Value op_name = s.Get("op");
    if (!op_name.IsString()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".op must be a string", true);
    PlanStep step;
    const std::string name = op_name.As<Napi::String>().Utf8Value();
    step.op = FindStepOp(name);
    if (step.op == nullptr) ThrowJs(env, "UNSUPPORTED", "ExecutionPlan: " + where + ": this build has no step op '" + name + "' (planStepOps() lists those it has)");
    Napi::Array attrs = ArrayAt(env, s, "attrs", where);
    for (uint32_t k = 0; k < attrs.Length(); ++k) {
      Napi::Value v = attrs.Get(k);
      if (!v.IsNumber()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".attrs must hold numbers", true);
      step.args.attrs.push_back(v.As<Napi::Number>().DoubleValue());
    }
    Napi::Array ins = ArrayAt(env, s, "inputs", where);
    for (uint32_t k = 0; k < ins.Length(); ++k) {
      const int id = buffer_id(ins.Get(k), where + ".inputs[" + std::to_string(k) + "]", true);
      step.args.inputs.push_back(id < 0 ? nullptr : &buffers_[id]);
    }
    Napi::Array outs = ArrayAt(env, s, "outputs", where);
    for (uint32_t k = 0; k < outs.Length(); ++k) {
      step.args.outputs.push_back(&buffers_[buffer_id(outs.Get(k), where + ".outputs[" + std::to_string(k) + "]", false)]);
    }
    step.args.stream = stream_;
    step.args.device = device_id_;
    step.args.tuning = tuning;
    step.args.warp_size = props.warpSize;
    Napi::Value ws = s.Get("workspace");
    if (ws.IsObject()) {
      const size_t offset = static_cast<size_t>(NumberAt(env, ws.As<Napi::Object>(), "offset", where + ".workspace"));
      const size_t bytes = static_cast<size_t>(NumberAt(env, ws.As<Napi::Object>(), "bytes", where + ".workspace"));
      if (offset + bytes > arena_bytes_) ThrowJsRange(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + ".workspace ends past arenaBytes");
      step.args.workspace = static_cast<uint8_t*>(arena_) + offset;
      step.args.workspace_bytes = bytes;
    }
    const size_t given_workspace = step.args.workspace_bytes;
    const std::string problem = step.op->check(&step.args);
    if (!problem.empty()) ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " (" + name + "): " + problem);
    if (step.args.workspace_bytes > given_workspace) {
      ThrowJs(env, "INVALID_ARGUMENT", "ExecutionPlan: " + where + " (" + name + ") needs " + std::to_string(step.args.workspace_bytes) +
                                      " bytes of workspace, the description gives " + std::to_string(given_workspace));
    }
    if (!step.op->capturable && capture_graph_) {
      capture_graph_ = false;
      graph_note_ = "step op '" + name + "' cannot be captured into a graph; running eagerly";
    }
    step_notes_.push_back(step.args.note);
    steps_.push_back(std::move(step));
  }
  const char* profile = std::getenv("SWITCHYARD_PLAN_PROFILE");
  if (profile != nullptr && profile[0] == '1') {
    step_events_.resize(steps_.size() + 1, nullptr);
    for (hipEvent_t& e : step_events_) CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&e));
  }
  // Constants were uploaded with synchronous copies; nothing is pending on the stream.
}

void ExecutionPlan::Release() {
  if (graph_exec_ != nullptr) (void)hipGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
  if (stream_ != nullptr) {
    // A plan collected without dispose() (or at process exit) hands its stream back too; one the pool
    // does not keep is destroyed here, its library handles left (calling the libraries at exit is unsafe).
    (void)hipStreamSynchronize(stream_);
    if (!runtime::ReturnPlanStream(device_id_, stream_)) (void)hipStreamDestroy(stream_);
  }
  stream_ = nullptr;
  for (hipEvent_t e : step_events_) {
    if (e != nullptr) (void)hipEventDestroy(e);
  }
  step_events_.clear();
  for (hipEvent_t* e : {&steps_begin_, &steps_end_, &run_begin_, &run_end_}) {
    if (*e != nullptr) (void)hipEventDestroy(*e);
    *e = nullptr;
  }
  input_mirrors_.Release();  // the stream was synchronized above: no DMA reads or writes them now
  output_mirrors_.Release();
  if (arena_ != nullptr) {
    (void)hipSetDevice(device_id_);
    (void)hipFree(arena_);
  }
  arena_ = nullptr;
}

Napi::Value ExecutionPlan::Dispose(const Napi::CallbackInfo& info) {
  // A run start() began is finished by this (JS) thread: waiting for it below would wait forever.
  // Its poller's next poll() reports the disposal.
  if (polled_ != nullptr) (void)FinishPolledRun();
  std::unique_lock<std::mutex> lock(mutex_);
  run_done_.wait(lock, [this] { return !in_flight_; });
  disposed_ = true;
  // The stream goes back to the runtime's pool with its library handles, for the next plan. One the
  // pool does not keep takes its handles with it. Only here, not in the destructor: a plan collected
  // at process exit may outlive the libraries.
  if (stream_ != nullptr) {
    (void)hipStreamSynchronize(stream_);
    if (!runtime::ReturnPlanStream(device_id_, stream_)) {
      dnn::ReleaseStream(device_id_, stream_);
      blas::ReleaseStream(device_id_, stream_);
      (void)hipStreamDestroy(stream_);
    }
    stream_ = nullptr;
  }
  Release();
  return info.Env().Undefined();
}

Napi::Value ExecutionPlan::GetArenaBytes(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(arena_bytes_)); }
Napi::Value ExecutionPlan::GetStepCount(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(steps_.size())); }
Napi::Value ExecutionPlan::GetGraphCaptured(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), graph_exec_ != nullptr); }
Napi::Value ExecutionPlan::GetGraphNote(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), graph_note_); }
Napi::Value ExecutionPlan::GetRuns(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), runs_); }
Napi::Value ExecutionPlan::GetLastGpuMs(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  return Napi::Number::New(info.Env(), last_gpu_ms_);
}

Napi::Value ExecutionPlan::GetLastHostLaunchMs(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  return Napi::Number::New(info.Env(), last_host_launch_ms_);
}

Napi::Value ExecutionPlan::GetLastCopyMs(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("in", Napi::Number::New(info.Env(), last_copy_in_ms_));
  out.Set("out", Napi::Number::New(info.Env(), last_copy_out_ms_));
  return out;
}

Napi::Value ExecutionPlan::GetLastRunPhasesMs(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("execute", Napi::Number::New(env, last_phases_.execute));
  out.Set("copyIn", Napi::Number::New(env, last_copy_in_ms_));
  out.Set("launch", Napi::Number::New(env, last_host_launch_ms_));
  out.Set("waitSteps", Napi::Number::New(env, last_phases_.wait_steps));
  out.Set("drain", Napi::Number::New(env, last_phases_.drain));
  out.Set("onCaller", Napi::Boolean::New(env, last_phases_.on_caller));
  out.Set("polled", Napi::Boolean::New(env, last_phases_.polled));
  // Device time of the input copies (before the steps) and the output copies (after them).
  float in_ms = -1, out_ms = -1;
  const bool ran = runs_ > 0;
  out.Set("deviceCopyIn", Napi::Number::New(env, ran && hipEventElapsedTime(&in_ms, run_begin_, steps_begin_) == hipSuccess ? in_ms : -1));
  out.Set("deviceCopyOut", Napi::Number::New(env, ran && hipEventElapsedTime(&out_ms, steps_end_, run_end_) == hipSuccess ? out_ms : -1));
  return out;
}

Napi::Value ExecutionPlan::GetStepNotes(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  Napi::Array out = Napi::Array::New(info.Env(), step_notes_.size());
  for (uint32_t i = 0; i < step_notes_.size(); ++i) out.Set(i, Napi::String::New(info.Env(), step_notes_[i]));
  return out;
}

Napi::Value ExecutionPlan::GetLastStepMs(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  Napi::Array out = Napi::Array::New(info.Env(), last_step_ms_.size());
  for (uint32_t i = 0; i < last_step_ms_.size(); ++i) out.Set(i, Napi::Number::New(info.Env(), last_step_ms_[i]));
  return out;
}


}  // namespace switchyard::plan
