#include "plan/execution_plan.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "device_buffer.h"
#include "gpu_errors.h"
#include "runtime/runtime.h"

namespace switchyard::plan {
namespace {

std::string Status(const char* call, hipError_t status) { return DescribeGpuStatus(call, status); }

double NumberAt(Napi::Env env, const Napi::Object& o, const char* key, const std::string& where) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + "." + key + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0) || d != std::floor(d) || d > 281474976710656.0) {
    throw Napi::RangeError::New(env, "ExecutionPlan: " + where + "." + key + " must be a non-negative integer below 2^48");
  }
  return d;
}

Napi::Array ArrayAt(Napi::Env env, const Napi::Object& o, const char* key, const std::string& where) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + "." + key + " must be an array");
  return v.As<Napi::Array>();
}

struct HostBytes {
  void* data = nullptr;
  size_t bytes = 0;
};

bool HostBytesOf(const Napi::Value& value, HostBytes* out) {
  if (!value.IsTypedArray()) return false;
  Napi::TypedArray a = value.As<Napi::TypedArray>();
  out->data = static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset();
  out->bytes = a.ByteLength();
  return true;
}

// The plan's run as a promise: the JS values it reads stay referenced until it settles.
class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(Napi::Env env, ExecutionPlan* plan, Napi::Object self)
      : Napi::AsyncWorker(env, "switchyard:plan.run"), plan_(plan), deferred_(Napi::Promise::Deferred::New(env)) {
    keep_.push_back(Napi::Persistent(Napi::Value(self)));
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Keep(const Napi::Value& v) { keep_.push_back(Napi::Persistent(v)); }
  // A run that failed to begin on the JS thread: the worker only reports it.
  void Fail(std::string error) { error_ = std::move(error); }
  RunIo io;

  void Execute() override {
    if (error_.empty()) error_ = io.launched_on_caller ? plan_->Complete(io) : plan_->Execute(io);
    if (!error_.empty()) SetError(error_);
  }
  void OnOK() override { deferred_.Resolve(Env().Undefined()); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  ExecutionPlan* plan_;
  Napi::Promise::Deferred deferred_;
  std::vector<Napi::Reference<Napi::Value>> keep_;
  std::string error_;
};

}  // namespace

Napi::Function ExecutionPlan::Define(Napi::Env env) {
  return DefineClass(env, "ExecutionPlan",
                     {
                         InstanceMethod<&ExecutionPlan::Run>("run"),
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
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "new ExecutionPlan(description): description must be an object");
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
    if (v != 0 && v != 1 && v != 2) throw Napi::RangeError::New(env, "ExecutionPlan: description.tuning must be 0, 1 or 2");
    tuning = static_cast<StepArgs::Tuning>(static_cast<int>(v));
  }

  Napi::Array buffers = ArrayAt(env, d, "buffers", "description");
  for (uint32_t i = 0; i < buffers.Length(); ++i) {
    const std::string where = "buffers[" + std::to_string(i) + "]";
    if (!buffers.Get(i).IsObject()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + " must be an object");
    Napi::Object b = buffers.Get(i).As<Napi::Object>();
    TensorRef t;
    const size_t offset = static_cast<size_t>(NumberAt(env, b, "offset", where));
    t.bytes = static_cast<size_t>(NumberAt(env, b, "bytes", where));
    t.dtype = static_cast<int>(NumberAt(env, b, "dtype", where));
    if (DTypeSize(t.dtype) == 0) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + ".dtype " + std::to_string(t.dtype) + " is not a type the plan holds");
    Napi::Array dims = ArrayAt(env, b, "dims", where);
    for (uint32_t k = 0; k < dims.Length(); ++k) {
      Napi::Value v = dims.Get(k);
      if (!v.IsNumber() || v.As<Napi::Number>().DoubleValue() < 0) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + ".dims must be non-negative numbers");
      t.dims.push_back(static_cast<int64_t>(v.As<Napi::Number>().DoubleValue()));
    }
    if (static_cast<size_t>(t.count()) * DTypeSize(t.dtype) != t.bytes) {
      throw Napi::RangeError::New(env, "ExecutionPlan: " + where + " has " + std::to_string(t.bytes) + " bytes, its dims and dtype need " +
                                           std::to_string(static_cast<size_t>(t.count()) * DTypeSize(t.dtype)));
    }
    if (offset + t.bytes > arena_bytes_) throw Napi::RangeError::New(env, "ExecutionPlan: " + where + " ends past arenaBytes");
    t.data = reinterpret_cast<void*>(offset);  // rebased onto the arena below
    buffers_.push_back(t);
  }

  auto buffer_id = [&](const Napi::Value& v, const std::string& where, bool allow_omitted) -> int {
    if (!v.IsNumber()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + " must be a buffer id");
    const double id = v.As<Napi::Number>().DoubleValue();
    if (allow_omitted && id == -1) return -1;
    if (!(id >= 0) || id != std::floor(id) || id >= static_cast<double>(buffers_.size())) {
      throw Napi::RangeError::New(env, "ExecutionPlan: " + where + " = " + std::to_string(id) + " is not a buffer id");
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
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipStreamCreateWithFlags), hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&steps_begin_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&steps_end_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&run_begin_));
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipEventCreate), hipEventCreate(&run_end_));

  Napi::Array constants = ArrayAt(env, d, "constants", "description");
  for (uint32_t i = 0; i < constants.Length(); ++i) {
    const std::string where = "constants[" + std::to_string(i) + "]";
    Napi::Object c = constants.Get(i).As<Napi::Object>();
    const int id = buffer_id(c.Get("buffer"), where + ".buffer", false);
    HostBytes host;
    if (!HostBytesOf(c.Get("data"), &host)) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + ".data must be a TypedArray");
    if (host.bytes != buffers_[id].bytes) {
      throw Napi::RangeError::New(env, "ExecutionPlan: " + where + " has " + std::to_string(host.bytes) + " bytes for a buffer of " + std::to_string(buffers_[id].bytes));
    }
    if (host.bytes > 0) CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemcpy), hipMemcpy(buffers_[id].data, host.data, host.bytes, hipMemcpyHostToDevice));
  }

  hipDeviceProp_t props;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipGetDeviceProperties), hipGetDeviceProperties(&props, device_id_));

  Napi::Array steps = ArrayAt(env, d, "steps", "description");
  for (uint32_t i = 0; i < steps.Length(); ++i) {
    const std::string where = "steps[" + std::to_string(i) + "]";
    if (!steps.Get(i).IsObject()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + " must be an object");
    Napi::Object s = steps.Get(i).As<Napi::Object>();
    Napi::Value op_name = s.Get("op");
    if (!op_name.IsString()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + ".op must be a string");
    PlanStep step;
    const std::string name = op_name.As<Napi::String>().Utf8Value();
    step.op = FindStepOp(name);
    if (step.op == nullptr) throw Napi::Error::New(env, "ExecutionPlan: " + where + ": this build has no step op '" + name + "' (planStepOps() lists those it has)");
    Napi::Array attrs = ArrayAt(env, s, "attrs", where);
    for (uint32_t k = 0; k < attrs.Length(); ++k) {
      Napi::Value v = attrs.Get(k);
      if (!v.IsNumber()) throw Napi::TypeError::New(env, "ExecutionPlan: " + where + ".attrs must hold numbers");
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
      if (offset + bytes > arena_bytes_) throw Napi::RangeError::New(env, "ExecutionPlan: " + where + ".workspace ends past arenaBytes");
      step.args.workspace = static_cast<uint8_t*>(arena_) + offset;
      step.args.workspace_bytes = bytes;
    }
    const size_t given_workspace = step.args.workspace_bytes;
    const std::string problem = step.op->check(&step.args);
    if (!problem.empty()) throw Napi::Error::New(env, "ExecutionPlan: " + where + " (" + name + "): " + problem);
    if (step.args.workspace_bytes > given_workspace) {
      throw Napi::Error::New(env, "ExecutionPlan: " + where + " (" + name + ") needs " + std::to_string(step.args.workspace_bytes) +
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

std::string ExecutionPlan::LaunchSteps(bool capturing) {
  // Profiling (SWITCHYARD_PLAN_PROFILE=1 when the plan was built): an event after every step of an
  // eager run; the gaps between them are each step's device time (launch gaps included).
  const bool profile = !capturing && !step_events_.empty();
  if (profile && hipEventRecord(step_events_[0], stream_) != hipSuccess) return "profile event failed";
  for (size_t i = 0; i < steps_.size(); ++i) {
    const hipError_t status = steps_[i].op->launch(steps_[i].args);
    if (status != hipSuccess) return Status(("step " + std::to_string(i) + " (" + steps_[i].op->name + ")").c_str(), status);
    if (profile && hipEventRecord(step_events_[i + 1], stream_) != hipSuccess) return "profile event failed";
  }
  return "";
}

void ExecutionPlan::AcquireRun() {
  std::unique_lock<std::mutex> lock(mutex_);
  run_done_.wait(lock, [this] { return !in_flight_; });
  in_flight_ = true;
}

bool ExecutionPlan::TryAcquireRun() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (in_flight_) return false;
  in_flight_ = true;
  return true;
}

void ExecutionPlan::ReleaseRun() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_ = false;
  }
  run_done_.notify_all();
}

bool ExecutionPlan::LaunchOnCaller(const RunIo& io) const {
  // Only a graph replay: an eager launch is the libraries' host work (up to ~1.5 ms for BERT), which
  // belongs on the worker. And only small host inputs, whose memcpy into the mirrors is short.
  if (graph_exec_ == nullptr || disposed_) return false;
  const char* mode = std::getenv("SWITCHYARD_PLAN_LAUNCH");
  if (mode != nullptr && std::strcmp(mode, "worker") == 0) return false;
  size_t host_bytes = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (io.input_kinds[i] == hipMemcpyHostToDevice) host_bytes += buffers_[inputs_[i]].bytes;
  }
  return host_bytes <= kCallerCopyBytes;
}

std::string ExecutionPlan::Execute(RunIo& io) {
  AcquireRun();
  const std::string error = BeginRun(io);
  if (error.empty()) return Complete(io);
  AbortRun();
  ReleaseRun();
  return error;
}

std::string ExecutionPlan::Complete(RunIo& io) {
  const std::string error = FinishRun(io);
  if (!error.empty()) AbortRun();
  ReleaseRun();
  return error;
}

void ExecutionPlan::AbortRun() {
  // Whatever was queued before the failure finishes before the slots are reused.
  if (stream_ != nullptr) (void)hipStreamSynchronize(stream_);
  (void)hipGetLastError();
}

std::string ExecutionPlan::BeginRun(RunIo& io) {
  if (disposed_) return "the plan was disposed";
  hipError_t status = hipSetDevice(device_id_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipSetDevice), status);
  // Host inputs go through the plan's pinned mirror of their slot: a memcpy (split over threads when
  // large) and a DMA queued on the plan's stream, ahead of the steps -- no wait here; the run's one
  // synchronization comes at its end. (A plain async copy from pageable JS memory would be staged by
  // the driver, synchronously and in small pieces.) Past the mirrors' budget, the runtime's shared
  // staging path, which returns once the bytes are on the device. Device inputs are copied on the
  // plan's stream. The previous run finished (FinishRun ends with a sync), so overwriting the input
  // slots and mirrors is safe.
  io.begin = std::chrono::steady_clock::now();
  status = hipEventRecord(run_begin_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const TensorRef& slot = buffers_[inputs_[i]];
    if (slot.bytes == 0) continue;
    if (io.input_kinds[i] == hipMemcpyHostToDevice) {
      HostMirror* mirror = input_mirrors_.Get(i, slot.bytes);
      status = mirror != nullptr ? QueueHostToDevice(device_id_, stream_, slot.data, mirror->host, io.input_sources[i], slot.bytes)
                                 : runtime::CopyHostToDevice(device_id_, slot.data, io.input_sources[i], slot.bytes);
    } else {
      status = hipMemcpyAsync(slot.data, io.input_sources[i], slot.bytes, io.input_kinds[i], stream_);
    }
    if (status != hipSuccess) return Status("input copy", status);
  }
  io.copy_in_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - io.begin).count();
  // The first run is eager (libraries may allocate workspaces on first use, which a capture forbids);
  // the second captures; later runs replay.
  if (capture_graph_ && graph_exec_ == nullptr && runs_ >= 1) {
    hipGraph_t graph = nullptr;
    status = hipStreamBeginCapture(stream_, hipStreamCaptureModeThreadLocal);
    if (status == hipSuccess) {
      const std::string launched = LaunchSteps(true);
      const hipError_t ended = hipStreamEndCapture(stream_, &graph);
      if (!launched.empty() || ended != hipSuccess) {
        graph_note_ = !launched.empty() ? "capture failed: " + launched : Status(SWITCHYARD_GPU_NAME(hipStreamEndCapture), ended);
        capture_graph_ = false;
        (void)hipGetLastError();
      } else {
        status = hipGraphInstantiateWithFlags(&graph_exec_, graph, 0);
        if (status != hipSuccess) {
          graph_note_ = Status(SWITCHYARD_GPU_NAME(hipGraphInstantiateWithFlags), status);
          graph_exec_ = nullptr;
          capture_graph_ = false;
        }
      }
      if (graph != nullptr) (void)hipGraphDestroy(graph);
    } else {
      graph_note_ = Status(SWITCHYARD_GPU_NAME(hipStreamBeginCapture), status);
      capture_graph_ = false;
    }
  }
  status = hipEventRecord(steps_begin_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  // Host time spent queuing the steps (library descriptor work, launches): the profile of what a
  // graph replay saves.
  const auto launch_begin = std::chrono::steady_clock::now();
  if (graph_exec_ != nullptr) {
    status = hipGraphLaunch(graph_exec_, stream_);
    if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipGraphLaunch), status);
  } else {
    const std::string launched = LaunchSteps(false);
    if (!launched.empty()) return launched;
  }
  io.launch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launch_begin).count();
  status = hipEventRecord(steps_end_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  // Outputs: device targets copied on the stream; host targets DMA'd into their pinned mirror on the
  // stream too, slice by slice, and drained into the JS array as each slice lands (past the mirrors'
  // budget: the runtime's staging path, after the sync).
  io.out_mirrors.assign(outputs_.size(), nullptr);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorRef& slot = buffers_[outputs_[i]];
    if (slot.bytes == 0) continue;
    if (io.output_kinds[i] == hipMemcpyDeviceToHost) {
      io.out_mirrors[i] = output_mirrors_.Get(i, slot.bytes);
      if (io.out_mirrors[i] == nullptr) continue;
      status = QueueDeviceToHost(stream_, io.out_mirrors[i], slot.data, slot.bytes);
    } else {
      status = hipMemcpyAsync(io.output_targets[i], slot.data, slot.bytes, io.output_kinds[i], stream_);
    }
    if (status != hipSuccess) return Status("output copy", status);
  }
  status = hipEventRecord(run_end_, stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventRecord), status);
  return "";
}

std::string ExecutionPlan::FinishRun(RunIo& io) {
  hipError_t status = hipSetDevice(device_id_);  // the current device is per thread (BeginRun may have run on another)
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipSetDevice), status);
  // While the GPU still works, the JS arrays' pages are touched so that the drain does not fault them in.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (io.output_kinds[i] == hipMemcpyDeviceToHost) TouchPages(io.output_targets[i], buffers_[outputs_[i]].bytes);
  }
  // lastCopyMs.out: from the end of the steps until the host outputs are in place (DMA and drain).
  const auto wait_begin = std::chrono::steady_clock::now();
  status = hipEventSynchronize(steps_end_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipEventSynchronize), status);
  const auto copy_out_begin = std::chrono::steady_clock::now();
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (io.out_mirrors[i] == nullptr) continue;
    status = DrainDeviceToHost(device_id_, io.output_targets[i], io.out_mirrors[i], buffers_[outputs_[i]].bytes);
    if (status != hipSuccess) return Status("output copy", status);
  }
  status = hipStreamSynchronize(stream_);
  if (status != hipSuccess) return Status(SWITCHYARD_GPU_NAME(hipStreamSynchronize), status);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorRef& slot = buffers_[outputs_[i]];
    if (slot.bytes == 0 || io.output_kinds[i] != hipMemcpyDeviceToHost || io.out_mirrors[i] != nullptr) continue;
    status = runtime::CopyDeviceToHost(device_id_, io.output_targets[i], slot.data, slot.bytes);
    if (status != hipSuccess) return Status("output copy", status);
  }
  const auto run_done = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);  // the accessors read what follows
  last_copy_in_ms_ = io.copy_in_ms;
  last_host_launch_ms_ = io.launch_ms;
  last_copy_out_ms_ = std::chrono::duration<double, std::milli>(run_done - copy_out_begin).count();
  last_phases_.execute = std::chrono::duration<double, std::milli>(run_done - io.begin).count();
  last_phases_.wait_steps = std::chrono::duration<double, std::milli>(copy_out_begin - wait_begin).count();
  last_phases_.drain = last_copy_out_ms_;
  last_phases_.on_caller = io.launched_on_caller;
  if (!step_events_.empty() && graph_exec_ == nullptr) {
    last_step_ms_.assign(steps_.size(), -1.0);
    for (size_t i = 0; i < steps_.size(); ++i) {
      float ms = -1;
      if (hipEventElapsedTime(&ms, step_events_[i], step_events_[i + 1]) == hipSuccess) last_step_ms_[i] = ms;
    }
  }
  float gpu_ms = -1;
  last_gpu_ms_ = hipEventElapsedTime(&gpu_ms, steps_begin_, steps_end_) == hipSuccess ? gpu_ms : -1;
  runs_ += 1;
  return "";
}

Napi::Value ExecutionPlan::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (disposed_) throw Napi::Error::New(env, "ExecutionPlan.run: the plan was disposed");
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsArray()) {
    throw Napi::TypeError::New(env, "ExecutionPlan.run(inputs, outputs): both must be arrays");
  }
  Napi::Array inputs = info[0].As<Napi::Array>();
  Napi::Array outputs = info[1].As<Napi::Array>();
  if (inputs.Length() != inputs_.size() || outputs.Length() != outputs_.size()) {
    throw Napi::RangeError::New(env, "ExecutionPlan.run: the plan takes " + std::to_string(inputs_.size()) + " inputs and " +
                                         std::to_string(outputs_.size()) + " outputs, got " + std::to_string(inputs.Length()) + " and " +
                                         std::to_string(outputs.Length()));
  }
  auto* worker = new RunWorker(env, this, info.This().As<Napi::Object>());
  try {
    for (uint32_t i = 0; i < inputs.Length(); ++i) {
      Napi::Value v = inputs.Get(i);
      const TensorRef& slot = buffers_[inputs_[i]];
      HostBytes host;
      const std::string what = "ExecutionPlan.run: inputs[" + std::to_string(i) + "]";
      if (HostBytesOf(v, &host)) {
        if (host.bytes != slot.bytes) throw Napi::RangeError::New(env, what + " has " + std::to_string(host.bytes) + " bytes, the plan expects " + std::to_string(slot.bytes));
        worker->io.input_sources.push_back(host.data);
        worker->io.input_kinds.push_back(hipMemcpyHostToDevice);
      } else {
        DeviceBuffer* b = DeviceBuffer::FromValue(env, v, what.c_str());
        if (b->byte_length() < slot.bytes) throw Napi::RangeError::New(env, what + " holds " + std::to_string(b->byte_length()) + " bytes, the plan expects " + std::to_string(slot.bytes));
        if (b->device_id() != device_id_) throw Napi::Error::New(env, what + " is on device " + std::to_string(b->device_id()) + ", the plan on " + std::to_string(device_id_));
        worker->io.input_sources.push_back(b->data());
        worker->io.input_kinds.push_back(hipMemcpyDeviceToDevice);
      }
      worker->Keep(v);
    }
    for (uint32_t i = 0; i < outputs.Length(); ++i) {
      Napi::Value v = outputs.Get(i);
      const TensorRef& slot = buffers_[outputs_[i]];
      HostBytes host;
      const std::string what = "ExecutionPlan.run: outputs[" + std::to_string(i) + "]";
      if (HostBytesOf(v, &host)) {
        if (host.bytes != slot.bytes) throw Napi::RangeError::New(env, what + " has " + std::to_string(host.bytes) + " bytes, the plan makes " + std::to_string(slot.bytes));
        worker->io.output_targets.push_back(host.data);
        worker->io.output_kinds.push_back(hipMemcpyDeviceToHost);
      } else {
        DeviceBuffer* b = DeviceBuffer::FromValue(env, v, what.c_str());
        if (b->byte_length() < slot.bytes) throw Napi::RangeError::New(env, what + " holds " + std::to_string(b->byte_length()) + " bytes, the plan makes " + std::to_string(slot.bytes));
        if (b->device_id() != device_id_) throw Napi::Error::New(env, what + " is on device " + std::to_string(b->device_id()) + ", the plan on " + std::to_string(device_id_));
        worker->io.output_targets.push_back(b->data());
        worker->io.output_kinds.push_back(hipMemcpyDeviceToDevice);
      }
      worker->Keep(v);
    }
  } catch (...) {
    delete worker;
    throw;
  }
  Napi::Promise promise = worker->Promise();
  // A graph replay begins here, on the JS thread (see execution_plan.h); anything else, or a run
  // while another is in flight, goes to the worker whole.
  if (TryAcquireRun()) {
    if (LaunchOnCaller(worker->io)) {
      worker->io.launched_on_caller = true;
      const std::string error = BeginRun(worker->io);
      if (!error.empty()) {
        AbortRun();
        ReleaseRun();
        worker->Fail(error);
      }
    } else {
      ReleaseRun();
    }
  }
  worker->Queue();
  return promise;
}

void ExecutionPlan::Release() {
  if (graph_exec_ != nullptr) (void)hipGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
  if (stream_ != nullptr) {
    (void)hipStreamSynchronize(stream_);
    (void)hipStreamDestroy(stream_);
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
  std::unique_lock<std::mutex> lock(mutex_);
  run_done_.wait(lock, [this] { return !in_flight_; });
  disposed_ = true;
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

namespace {
// [sync] planStepOps() -> string[]: the step ops this build can run (the EP intersects its kernel
// table with it, so an op whose seam was compiled out is declined with a reason).
Napi::Value PlanStepOps(const Napi::CallbackInfo& info) {
  std::vector<std::string> names = StepOpNames();
  Napi::Array out = Napi::Array::New(info.Env(), names.size());
  for (uint32_t i = 0; i < names.size(); ++i) out.Set(i, Napi::String::New(info.Env(), names[i]));
  return out;
}

// [sync] planDeviceMemory(deviceId) -> { free, total }: the device's memory as the driver reports
// it (all processes), for benchmarks that report a peak without a profiler.
Napi::Value PlanDeviceMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int device = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipSetDevice), hipSetDevice(device));
  size_t free_bytes = 0, total_bytes = 0;
  CheckGpu(env, SWITCHYARD_GPU_NAME(hipMemGetInfo), hipMemGetInfo(&free_bytes, &total_bytes));
  Napi::Object out = Napi::Object::New(env);
  out.Set("free", Napi::Number::New(env, static_cast<double>(free_bytes)));
  out.Set("total", Napi::Number::New(env, static_cast<double>(total_bytes)));
  return out;
}
}  // namespace

}  // namespace switchyard::plan

namespace switchyard {
void InitPlan(Napi::Env env, Napi::Object exports) {
  exports.Set("ExecutionPlan", plan::ExecutionPlan::Define(env));
  exports.Set("planStepOps", Napi::Function::New<plan::PlanStepOps>(env, "planStepOps"));
  exports.Set("planDeviceMemory", Napi::Function::New<plan::PlanDeviceMemory>(env, "planDeviceMemory"));
}
}  // namespace switchyard
